import { describe, expect, it } from 'vitest';
import { LIMITS, MessageImportItem } from '../../src/wire/imports.js';
import { resolveMessageChannel, splitBody, stripUrlToken } from '../../src/transform/slack/index.js';
import { itemsOf, mapMessages, sourceOf } from './helpers/hand-made.js';

const users = [
  { id: 'U1', team_id: 'T1', name: 'ana' },
  { id: 'U2', team_id: 'T1', name: 'bo' },
  { id: 'UB', team_id: 'T1', name: 'buildbot', is_bot: true, profile: { bot_id: 'B1' } },
];
const channels = [{ id: 'C1', name: 'general', members: ['U1', 'U2'] }];
const msg = (ts: string, extra: Record<string, unknown> = {}) => ({ type: 'message', ts, user: 'U1', text: `at ${ts}`, ...extra });
const run = (days: Record<string, unknown[]>, options = {}) => mapMessages({ users, channels, days: { C1: days } }, options);
const single = (message: Record<string, unknown>, options = {}) => {
  const outcomes = run({ '2020-09-13': [message] }, options);
  expect(outcomes).toHaveLength(1);
  return outcomes[0]!;
};
const item = (message: Record<string, unknown>) => {
  const outcome = single(message);
  if (outcome.outcome !== 'items') throw new Error(`expected items, got ${JSON.stringify(outcome)}`);
  return outcome.items[0]!.item;
};

describe('message order and threads', () => {
  const days = {
    '2020-09-13': [msg('1600000300.000001'), msg('1600000100.000001', { thread_ts: '1600000100.000001', reply_count: 2 }), msg('1600000200.000001', { thread_ts: '1600000100.000001', user: 'U2' })],
    '2020-09-14': [],
    '2020-09-15': [msg('1600172900.000001', { thread_ts: '1600000100.000001', user: 'U2' }), msg('1600172800.000001'), msg('1600172950.000001', { thread_ts: '1500000000.000000' })],
  };
  const outcomes = run(days);
  const items = itemsOf(outcomes);

  it('emits each channel in ts order: day files in date order, each sorted', () => {
    expect(items.map((i) => sourceOf(i.item).ts)).toEqual(['1600000100.000001', '1600000200.000001', '1600000300.000001', '1600172800.000001', '1600172900.000001', '1600172950.000001']);
  });

  it('replies come after their root and carry its reference, even from a later day file', () => {
    const [root, reply, , , lateReply] = items.map((i) => sourceOf(i.item));
    expect(root!.thread).toEqual({ root: 'C1/1600000100.000001', isRoot: true, replyCount: 2 });
    expect(reply!.thread).toEqual({ root: 'C1/1600000100.000001', isRoot: false });
    expect(lateReply!.thread).toEqual({ root: 'C1/1600000100.000001', isRoot: false });
  });

  it('marks a reply whose root is not in the export, and still imports it', () => {
    expect(sourceOf(items[5]!.item).thread).toEqual({ root: 'C1/1500000000.000000', isRoot: false, rootMissing: true });
  });

  it('forgets the oldest roots past the bound and then does not claim they are missing', () => {
    const outcomes = run(days, { maxTrackedThreadRoots: 0 });
    expect(itemsOf(outcomes).filter((i) => (sourceOf(i.item).thread as { rootMissing?: boolean } | undefined)?.rootMissing === true)).toEqual([]);
    expect(sourceOf(itemsOf(outcomes)[4]!.item).thread).toEqual({ root: 'C1/1600000100.000001', isRoot: false });
  });

  it('keeps ts and its ISO time; keys are team + channel + ts through keyFor', () => {
    expect(sourceOf(items[0]!.item)).toMatchObject({ system: 'slack', kind: 'message', id: 'C1/1600000100.000001', workspace: 'T1', channel: 'C1', ts: '1600000100.000001', time: '2020-09-13T12:28:20.000Z', author: 'U1', authorKind: 'user' });
    expect(items[0]!.item.idempotencyKey).toBe('slack/messages/T1/C1/1600000100.000001');
    const custom = itemsOf(run(days, { keyFor: (stage: string, key: string) => `${stage}|${key}` }));
    expect(custom[0]!.item.idempotencyKey).toBe('messages|T1/C1/1600000100.000001');
  });

  it('a repeated ts gets its own key; an earlier ts after a later one is marked', () => {
    const outcomes = run({ '2020-09-13': [msg('1600000100.000001', { text: 'a' }), msg('1600000100.000001', { text: 'b' })], '2020-09-14': [msg('1600000000.000001')] });
    const [a, b, early] = itemsOf(outcomes).map((i) => i.item);
    expect([a!.idempotencyKey, b!.idempotencyKey]).toEqual(['slack/messages/T1/C1/1600000100.000001', 'slack/messages/T1/C1/1600000100.000001~2']);
    expect(sourceOf(b!)).toMatchObject({ occurrence: 2, id: 'C1/1600000100.000001~2' });
    expect(sourceOf(early!).outOfOrder).toBe(true);
  });
});

describe('message kinds', () => {
  it('user messages are TEXT with their sender', () => {
    expect(item(msg('1.000001', { text: 'hello <@U2>' }))).toMatchObject({ type: 'TEXT', user: 'ana', body: 'hello @bo' });
  });

  it.each(['channel_join', 'channel_leave', 'channel_topic', 'channel_purpose', 'channel_name', 'channel_archive', 'group_join', 'pinned_item', 'bot_add', 'some_future_subtype'])(
    '%s is SYSTEM_TEXT without a user, or skipped by option',
    (subtype) => {
      const message = msg('1.000001', { subtype, text: '<@U1> has joined the channel' });
      const imported = item(message);
      expect(imported).toMatchObject({ type: 'SYSTEM_TEXT', body: '@ana has joined the channel' });
      expect(imported.user).toBeUndefined();
      expect(sourceOf(imported)).toMatchObject({ subtype, author: 'U1' });
      expect(single(message, { systemMessages: 'skip' })).toMatchObject({ outcome: 'skipped', reason: `system message: ${subtype}` });
    },
  );

  it('tombstones stand in for deleted thread roots and are kept even when system messages are skipped', () => {
    const outcomes = run({ '2020-09-13': [msg('1.000001', { subtype: 'tombstone', user: 'USLACKBOT', text: 'This message was deleted.', thread_ts: '1.000001' }), msg('2.000001', { thread_ts: '1.000001' })] }, { systemMessages: 'skip' });
    const [root, reply] = itemsOf(outcomes).map((i) => i.item);
    expect(root).toMatchObject({ type: 'SYSTEM_TEXT', body: 'This message was deleted.' });
    expect(sourceOf(reply!).thread).toEqual({ root: 'C1/1.000001', isRoot: false });
  });

  it('a skipped root is still in the export: its replies are not marked rootMissing', () => {
    const outcomes = run({ '2020-09-13': [msg('1.000001', { subtype: 'channel_join', thread_ts: '1.000001' }), msg('2.000001', { thread_ts: '1.000001' })] }, { systemMessages: 'skip' });
    expect(sourceOf(itemsOf(outcomes)[0]!.item).thread).toEqual({ root: 'C1/1.000001', isRoot: false });
  });

  it('a system message with no text says what it was', () => {
    expect(item(msg('1.000001', { subtype: 'channel_archive', text: '' })).body).toBe('(channel_archive)');
  });

  it('bot messages are attributed to the bot user, or to a placeholder for bots without one', () => {
    expect(item({ type: 'message', ts: '1.000001', subtype: 'bot_message', bot_id: 'B1', username: 'buildbot', text: 'ok' })).toMatchObject({ type: 'TEXT', user: 'buildbot' });
    const placeholder = item({ type: 'message', ts: '1.000001', subtype: 'bot_message', bot_id: 'B7', bot_profile: { name: 'deploy bot' }, text: 'done' });
    expect(placeholder).toMatchObject({ type: 'TEXT', user: 'deploy-bot' });
    expect(sourceOf(placeholder)).toMatchObject({ author: 'B7', authorKind: 'bot', extra: { bot_profile: { name: 'deploy bot' } } });
  });

  it('me_message, file_share and thread_broadcast are content', () => {
    expect(item(msg('1.000001', { subtype: 'me_message' })).type).toBe('TEXT');
    expect(item(msg('1.000001', { subtype: 'thread_broadcast', thread_ts: '0.5' })).type).toBe('TEXT');
  });

  it('edit events are skipped (the export holds the final message) and non-messages too', () => {
    expect(single(msg('1.000001', { subtype: 'message_changed' }))).toMatchObject({ outcome: 'skipped', reason: expect.stringContaining('edit event') });
    expect(single({ type: 'reminder', ts: '1.000001' })).toMatchObject({ outcome: 'skipped', reason: 'not a message record (type "reminder")' });
  });

  it('edited messages carry their final text and the edit', () => {
    const edited = item(msg('1600000000.000001', { text: 'final', edited: { user: 'U1', ts: '1600000060.000000' } }));
    expect(edited.body).toBe('final');
    expect(sourceOf(edited).edited).toEqual({ by: 'U1', ts: '1600000060.000000', time: '2020-09-13T12:27:40.000Z' });
  });

  it('files: links in the body without tokens, tombstoned and hidden ones noted, metadata in properties', () => {
    const withFiles = item(
      msg('1.000001', {
        text: 'see',
        files: [
          { id: 'F1', name: 'a.pdf', title: 'Report', mimetype: 'application/pdf', size: 10, url_private: 'https://files.invalid/F1/a.pdf', url_private_download: 'https://files.invalid/F1/download/a.pdf?t=SECRET', thumb_64: 'x', created: 5 },
          { id: 'F2', mode: 'tombstone' },
          { id: 'F3', name: 'big.mov', mode: 'hidden_by_limit' },
          { id: 'F4', name: 'b.txt', url_private: 'https://files.invalid/F4/b.txt?t=SECRET&x=1' },
        ],
      }),
    );
    expect(withFiles.body).toBe("see\n[file: Report] https://files.invalid/F1/a.pdf\n[file deleted: F2]\n[file hidden by Slack's plan limits: big.mov]\n[file: b.txt] https://files.invalid/F4/b.txt?x=1");
    expect(JSON.stringify(withFiles)).not.toContain('SECRET');
    expect(sourceOf(withFiles).files).toEqual([
      { id: 'F1', name: 'a.pdf', title: 'Report', mimetype: 'application/pdf', sizeBytes: 10, url: 'https://files.invalid/F1/a.pdf', state: 'available', extra: { created: 5 } },
      { id: 'F2', state: 'deleted' },
      { id: 'F3', name: 'big.mov', state: 'hidden' },
      { id: 'F4', name: 'b.txt', url: 'https://files.invalid/F4/b.txt?x=1', state: 'available' },
    ]);
  });

  it('files and attachments keep no access token in any URL kept in properties (previews, conversions, images)', () => {
    const token = 'xoxe-1234-SECRET';
    const m = item(
      msg('1.000001', {
        text: 'clip',
        files: [{ id: 'F1', name: 'a.mp4', url_private: `https://files.invalid/F1/a.mp4?t=${token}`, mp4: `https://files.invalid/F1/a.mp4?t=${token}`, vtt: `https://files.invalid/F1/a.vtt?t=${token}&x=1`, thumb_360_gif: `https://files.invalid/F1/t.gif?t=${token}`, converted_pdf: `https://files.invalid/F1/c.pdf?t=${token}` }],
        attachments: [{ fallback: 'img', image_url: `https://files.invalid/i.png?x=1&t=${token}`, from_url: 'https://video.invalid/v?t=30' }],
      }),
    );
    expect(JSON.stringify(m)).not.toContain('xoxe');
    const file = (sourceOf(m).files as Array<{ extra?: unknown }>)[0]!;
    expect(file.extra).toEqual({ mp4: 'https://files.invalid/F1/a.mp4', vtt: 'https://files.invalid/F1/a.vtt?x=1', thumb_360_gif: 'https://files.invalid/F1/t.gif', converted_pdf: 'https://files.invalid/F1/c.pdf' });
    // A `t` that is not a token (a video's start time) stays.
    expect(sourceOf(m).extra).toMatchObject({ attachments: [{ fallback: 'img', image_url: 'https://files.invalid/i.png?x=1', from_url: 'https://video.invalid/v?t=30' }] });
  });

  it('reactions with skin tones go to properties', () => {
    const reacted = item(msg('1.000001', { reactions: [{ name: 'thumbsup::skin-tone-3', users: ['U1', 'U2'], count: 2 }, { name: 'tada', users: ['U2'], count: 1 }] }));
    expect(sourceOf(reacted).reactions).toEqual([
      { emoji: 'thumbsup', skinTone: 3, name: 'thumbsup::skin-tone-3', users: ['U1', 'U2'], count: 2 },
      { emoji: 'tada', name: 'tada', users: ['U2'], count: 1 },
    ]);
  });

  it('mentions are kept as ids; blocks and user_profile are dropped as repetition; other fields kept in extra', () => {
    const m = item(msg('1.000001', { text: '<@U2> <#C1|x> <!here>', blocks: [{ type: 'rich_text' }], user_profile: { name: 'ana' }, client_msg_id: 'abc' }));
    expect(sourceOf(m)).toMatchObject({ mentions: { users: ['U2'], channels: ['C1'], broadcasts: ['here'] }, extra: { client_msg_id: 'abc' } });
    expect(sourceOf(m).extra).not.toHaveProperty('blocks');
    expect(m.body).toBe('@bo #general @here');
  });

  it('a message with blocks and no text takes its body from the blocks, not skipped as empty', () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Deploy <done>' } },
      { type: 'rich_text', elements: [
        { type: 'rich_text_section', elements: [{ type: 'text', text: 'hi ' }, { type: 'user', user_id: 'U2' }, { type: 'text', text: ' a & b ' }, { type: 'emoji', name: 'tada' }, { type: 'link', url: 'https://x.invalid', text: 'x' }] },
        { type: 'rich_text_list', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] }] },
      ] },
      { type: 'section', text: { type: 'mrkdwn', text: '*see* <#C1>' } },
    ];
    const m = item(msg('1.000001', { text: '', blocks }));
    expect(m.body).toBe('Deploy <done>\nhi @bo a & b :tada:x (https://x.invalid)\n• one\n*see* #general');
    expect(sourceOf(m).mentions).toMatchObject({ users: ['U2'], channels: ['C1'] });
    expect(item(msg('1.000001', { text: undefined, blocks })).body).toBe(m.body);
    expect(single(msg('1.000001', { text: '', blocks: [{ type: 'divider' }] }))).toMatchObject({ outcome: 'skipped' });
  });

  it('rich text dates and colours in blocks keep their text (a date its fallback, else its time), not dropped', () => {
    const section = (elements: unknown[]) => [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] }];
    const dated = section([{ type: 'text', text: 'meet ' }, { type: 'date', timestamp: 1600000000, format: '{date_short} at {time}', fallback: 'Sep 13 & later' }, { type: 'text', text: ' in ' }, { type: 'color', value: '#FF0000' }]);
    expect(item(msg('1.000001', { text: '', blocks: dated })).body).toBe('meet Sep 13 & later in #FF0000');
    expect(item(msg('1.000001', { text: '', blocks: section([{ type: 'date', timestamp: 1600000000, format: '{date}' }]) })).body).toBe('2020-09-13T12:26:40.000Z');
  });

  it('an attachment with no fallback, text or title gives its pretext, author, fields, blocks and footer, not skipped as empty', () => {
    const attachments = [{ pretext: 'Build failed', color: 'danger', author_name: 'ci', fields: [{ title: 'Branch', value: 'main', short: true }, { title: 'Commit', value: 'c1' }], footer: 'Jenkins' }];
    expect(item(msg('1.000001', { subtype: 'bot_message', user: undefined, bot_id: 'B1', text: '', attachments })).body).toBe('Build failed\nci\nBranch: main\nCommit: c1\nJenkins');
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'from *blocks*' } }];
    expect(item(msg('1.000001', { text: '', attachments: [{ blocks }] })).body).toBe('from *blocks*');
  });

  it('an ordered rich text list keeps its numbers (from its offset), a bullet list its bullets', () => {
    const list = (style: string, extra = {}) => [{ type: 'rich_text', elements: [{ type: 'rich_text_list', style, ...extra, elements: ['one', 'two'].map((text) => ({ type: 'rich_text_section', elements: [{ type: 'text', text }] })) }] }];
    expect(item(msg('1.000001', { text: '', blocks: list('ordered') })).body).toBe('1. one\n2. two');
    expect(item(msg('1.000001', { text: '', blocks: list('ordered', { offset: 2 }) })).body).toBe('3. one\n4. two');
    expect(item(msg('1.000001', { text: '', blocks: list('bullet') })).body).toBe('• one\n• two');
  });

  it('an image block gives its title or alt text and its URL, not skipped as empty', () => {
    const image = { type: 'image', image_url: 'https://img.invalid/chart.png', alt_text: 'sales chart', title: { type: 'plain_text', text: 'Q3 <sales>' } };
    expect(item(msg('1.000001', { text: '', blocks: [image] })).body).toBe('[image: Q3 <sales>] https://img.invalid/chart.png');
    expect(item(msg('1.000001', { text: '', blocks: [{ ...image, title: undefined }] })).body).toBe('[image: sales chart] https://img.invalid/chart.png');
    expect(item(msg('1.000001', { text: '', blocks: [{ type: 'image', slack_file: { id: 'F1' }, alt_text: 'upload' }] })).body).toBe('[image: upload]');
  });

  it('a message with only attachments uses their text; a message with nothing is skipped with a reason', () => {
    expect(item(msg('1.000001', { text: '', attachments: [{ fallback: 'Preview of x' }] })).body).toBe('Preview of x');
    expect(single(msg('1.000001', { text: '   ' }))).toMatchObject({ outcome: 'skipped', reason: 'empty message: no text, files or attachments' });
  });

  it('a message with no author at all is kept as a system message', () => {
    const orphan = item({ type: 'message', ts: '1.000001', text: 'who?' });
    expect(orphan).toMatchObject({ type: 'SYSTEM_TEXT', body: 'who?' });
    expect(sourceOf(orphan).authorKind).toBe('system');
  });

  it('rejects a malformed record with its field, and goes on', () => {
    const outcomes = run({ '2020-09-13': [msg('not-a-ts'), msg('2.000001'), { type: 'message', ts: '3.0', text: 5 }] });
    expect(outcomes.map((o) => o.outcome)).toEqual(['rejected', 'rejected', 'items']);
    expect(outcomes[0]).toMatchObject({ position: { file: 'C1/2020-09-13.json', index: 0 }, field: 'ts' });
    expect(outcomes[1]).toMatchObject({ position: { index: 2 }, field: 'text' });
  });

  it('a null in a typed optional field reads as absent; unknown nulls stay in extra; a null ts still rejects', () => {
    const withNulls = msg('4.000001', {
      parent_user_id: null,
      bot_profile: null,
      edited: { user: null, ts: '4.5' },
      attachments: [{ fallback: null, text: 'attached' }],
      files: [{ id: 'F1', name: 'a.txt', url_private: null, mode: 'hosted' }],
      reactions: [{ name: 'tada', users: ['U2'], count: null }],
      custom_null: null,
    });
    const mapped = item(withNulls);
    expect(mapped).toMatchObject({ type: 'TEXT', body: expect.stringContaining('at 4.000001') });
    expect(sourceOf(mapped).author).toBe('U1');
    expect(sourceOf(mapped).extra).toMatchObject({ custom_null: null });
    expect((withNulls as Record<string, unknown>).parent_user_id).toBeNull();
    expect(single(msg('5.000001', { reactions: [{ name: null }] }))).toMatchObject({ outcome: 'rejected', field: 'reactions.0.name' });
    expect(single({ type: 'message', ts: null, user: 'U1', text: 'x' })).toMatchObject({ outcome: 'rejected', field: 'ts' });
  });

  it('a null entry in files, attachments, reactions or blocks (a file deleted or not exported) is left out, not a reject of the message', () => {
    const file = { id: 'F1', name: 'a.pdf', url_private: 'https://files.invalid/F1/a.pdf' };
    const withNullFile = item(msg('6.000001', { text: 'see', files: [null] }));
    expect(withNullFile.body).toBe('see');
    expect(sourceOf(withNullFile).files).toBeUndefined();
    const mixed = item(msg('7.000001', { text: 'see', files: [file, null, { ...file, id: 'F2', name: 'b.pdf' }], reactions: [null, { name: 'tada', users: ['U2', null], count: 2 }, null] }));
    expect(mixed.body).toBe('see\n[file: a.pdf] https://files.invalid/F1/a.pdf\n[file: b.pdf] https://files.invalid/F1/a.pdf');
    expect((sourceOf(mixed).files as unknown[]).map((f) => (f as { id: string }).id)).toEqual(['F1', 'F2']);
    expect(sourceOf(mixed).reactions).toEqual([{ emoji: 'tada', name: 'tada', users: ['U2'], count: 2 }]);
    expect(item(msg('8.000001', { text: '', attachments: [null, { fallback: 'Preview of x' }] })).body).toBe('Preview of x');
    expect(item(msg('9.000001', { text: 'hi', attachments: [null] })).body).toBe('hi');
    expect(item(msg('10.000001', { text: 'hi', reactions: [null] })).body).toBe('hi');
    const section = (text: string) => ({ type: 'rich_text_section', elements: [{ type: 'text', text }] });
    const blocks = [null, { type: 'rich_text', elements: [null, { type: 'rich_text_list', style: 'ordered', elements: [section('one'), null, section('two')] }] }];
    expect(item(msg('11.000001', { text: '', blocks })).body).toBe('1. one\n2. two');
    // Nothing left to show: skipped, and the reason says the files were null entries.
    expect(single(msg('12.000001', { text: '', files: [null, null] }))).toMatchObject({ outcome: 'skipped', reason: 'empty message: no text, attachments or files (its 2 file entries are null: deleted or not exported)' });
  });

  it('every item is valid once its channel id is filled in', () => {
    const pending = itemsOf(run({ '2020-09-13': [msg('1.000001'), msg('2.000001', { subtype: 'channel_join' })] }));
    for (const p of pending) {
      const resolved = resolveMessageChannel(p, new Map([['C1', 7]]));
      expect(resolved.ok).toBe(true);
      if (resolved.ok) expect(MessageImportItem.safeParse(resolved.item).success).toBe(true);
      if (resolved.ok) expect(resolved.item.channelId).toBe(7);
    }
    expect(resolveMessageChannel(pending[0]!, new Map())).toEqual({ ok: false, reason: 'channel C1 has no platform id (it was not imported)' });
  });
});

describe('long messages', () => {
  it('are split into parts within the limit, keeping every character', () => {
    const text = Array.from({ length: 9000 }, (_, i) => `word${i}`).join(' ') + '\n' + '👍'.repeat(20_000);
    const outcome = single(msg('1.000001', { text, reactions: [{ name: 'tada', users: ['U1'], count: 1 }] }));
    if (outcome.outcome !== 'items') throw new Error('expected items');
    const parts = outcome.items.map((i) => i.item);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.body).join('')).toBe(text);
    for (const p of parts) {
      expect(p.body.length).toBeLessThanOrEqual(LIMITS.bodyLength);
      expect(p.body).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
      expect(MessageImportItem.safeParse({ ...p, channelId: 1 }).success).toBe(true);
    }
    expect(parts.map((p) => p.idempotencyKey)).toEqual(parts.map((_, i) => `slack/messages/T1/C1/1.000001${i === 0 ? '' : `/part${i + 1}`}`));
    expect(sourceOf(parts[0]!)).toMatchObject({ part: { index: 1, count: parts.length }, reactions: [{ emoji: 'tada' }] });
    expect(sourceOf(parts[1]!)).not.toHaveProperty('reactions');
    expect(sourceOf(parts[1]!)).toMatchObject({ id: 'C1/1.000001', part: { index: 2, count: parts.length } });
  });

  it('splitBody prefers line breaks, then spaces', () => {
    expect(splitBody('aaaa\nbbbb cccc', 10)).toEqual(['aaaa\nbbbb ', 'cccc']);
    expect(splitBody('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(splitBody('short', 10)).toEqual(['short']);
  });
});

describe('stripUrlToken', () => {
  it.each([
    ['https://f.invalid/a?t=xyz', 'https://f.invalid/a'],
    ['https://f.invalid/a?x=1&t=xyz', 'https://f.invalid/a?x=1'],
    ['https://f.invalid/a', 'https://f.invalid/a'],
  ])('%s → %s', (input, expected) => expect(stripUrlToken(input)).toBe(expected));
});
