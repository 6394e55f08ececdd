/**
 * Crash consistency at exact points: `chatport import` of users, channels, members and messages with reply
 * threads, chains and orphans, SIGKILLed at one exact journal line after another (after the line, before
 * it, or with half of it written: test/helpers/kill-at-journal-line.mjs), each kill in the run that resumes
 * the one before. The run that finishes must hold every message once, where the source puts it (its channel
 * in order, its root's thread in order, an orphan in its channel), count what a clean run counts, and
 * verify exact.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareInt64 } from '../../src/shared/int64.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/roots.js';
import type { Message } from '../../src/wire/resources.js';
import { chatportKilledAt, chatportProcess } from '../helpers/cli-process.js';
import { all, skippedLines, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture({ jobs: { minDurationMs: 10 } });
});
afterAll(() => f.close());

const CHANNELS = 3;

/** 90 messages: every 3rd a reply to an earlier message of its channel (some to replies), every 16th naming a message no source has. */
function source() {
  const messages = Array.from({ length: 90 }, (_, i) => {
    const channel = i % CHANNELS;
    const parent = i % 16 === 15 ? `gone${i}` : i % 3 === 2 && i >= 6 ? `m${i - 3 * (1 + (i % 4))}` : '';
    return { id: `m${i}`, channel, author: `user${i % 5}`, text: `message ${i}`, parent };
  });
  const byId = new Map(messages.map((m) => [m.id, m]));
  const chainRoot = (m: (typeof messages)[number]): (typeof messages)[number] | undefined => (m.parent === '' ? m : byId.has(m.parent) ? chainRoot(byId.get(m.parent)!) : undefined);
  const expected = Array.from({ length: CHANNELS }, () => ({ channel: [] as string[], orphans: [] as string[], threads: new Map<string, string[]>() }));
  for (const m of messages) {
    const e = expected[m.channel]!;
    const root = chainRoot(m);
    if (m.parent === '') e.channel.push(m.text);
    else if (root === undefined) e.orphans.push(m.text);
    else e.threads.set(root.text, [...(e.threads.get(root.text) ?? []), m.text]);
  }
  const csv = {
    users: ['id,username,display', ...Array.from({ length: 5 }, (_, i) => `u${i},user${i},User ${i}`)],
    channels: ['key,name,members', ...Array.from({ length: CHANNELS }, (_, c) => `c${c},chan-${c},user0|user1`)],
    members: ['channel,user', ...Array.from({ length: CHANNELS }, (_, c) => [`c${c},user2`, `c${c},user3`, `c${c},user4`]).flat()],
    messages: ['id,channel,author,text,parent', ...messages.map((m) => `${m.id},c${m.channel},${m.author},${m.text},${m.parent}`)],
  };
  return { csv, expected, replies: messages.filter((m) => m.parent !== '' && chainRoot(m) !== undefined).length };
}

const pipeline = `name: exact-kills
options: { chunkRecords: 10, concurrency: 2 }
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  members: { source: { path: members.csv }, key: [channel, user], channel: channel, mapping: { username: user } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, thread: parent, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

const byId = (a: Message, b: Message) => compareInt64(a.id, b.id);

describe('import killed at exact journal lines', () => {
  it('holds every message once, in its place, after kills after, before and amid lines of each kind', async () => {
    const dir = join(f.dir, 'exact-kills');
    const { csv, expected, replies } = source();
    for (const [name, lines] of Object.entries(csv)) await writeInput(dir, `${name}.csv`, `${lines.join('\n')}\n`);
    const { path } = await writePipeline(dir, pipeline);
    const args = ['import', path, '--state', join(dir, 'state'), '--json'];
    const messagesLine = '"stage":"messages"';
    const kills = [
      `chunk-written:2:torn:${messagesLine}`,
      `part-ended:2:before:${messagesLine}`,
      'reply-sent:3:before',
      'reply-sent:1:torn:"orphan":true',
    ];
    for (const at of kills) expect((await chatportKilledAt(args, f.env, at)).signal, at).toBe('SIGKILL');

    const final = await chatportProcess(args, f.env);
    // 0: the verification that follows the run found the platform exact.
    expect(final.code, final.stderr).toBe(0);
    const report = JSON.parse(final.stdout) as { attempt: number; totals: { balanced: boolean }; stages: Record<string, object> };
    expect(report.attempt).toBe(kills.length + 1);
    expect(report.totals.balanced).toBe(true);
    const orphans = expected.reduce((n, e) => n + e.orphans.length, 0);
    expect(report.stages.messages).toMatchObject({ read: 90, imported: 90, rejected: 0, duplicates: 0, skipped: 0, replies, orphans });
    expect(report.stages.members).toMatchObject({ read: 9, imported: 9 });

    const channels = await all(f.client.channels.list());
    for (const [c, want] of expected.entries()) {
      const held = (await all(f.client.channels.messages(channels.find((ch) => ch.name === `chan-${c}`)!.id, { pageSize: 100 }))).sort(byId);
      // Roots in source order, then the orphans, sent after the imports.
      expect(held.slice(0, want.channel.length).map((m) => m.body)).toEqual(want.channel);
      expect(held.slice(want.channel.length).map((m) => m.body).sort()).toEqual([...want.orphans].sort());
      for (const root of held.slice(0, want.channel.length)) {
        const thread = (await all(f.client.threads.messages(replyThreadIdOf(root)!))).sort(byId).map((m) => m.body);
        expect(thread, `thread of ${root.body}`).toEqual(want.threads.get(root.body!) ?? []);
      }
    }
  }, 60_000);

  it('lists each skipped record once after kills before and after a stage\'s end and amid its chunks', async () => {
    const dir = join(f.dir, 'exact-kills-skips');
    // users: u2 and u5 skipped by the rule, two empty rows last; messages: every 7th skipped by its rule.
    const users = ['id,username,status', ...Array.from({ length: 6 }, (_, i) => `u${i},skip-user${i},${i % 3 === 2 ? 'gone' : 'here'}`), ',,', ',,'];
    const messages = ['id,channel,author,text', ...Array.from({ length: 60 }, (_, i) => `m${i},c${i % 2},skip-user${i % 2},${i % 7 === 6 ? 'DROP' : `message ${i}`}`)];
    await writeInput(dir, 'users.csv', `${users.join('\n')}\n`);
    await writeInput(dir, 'channels.csv', 'key,name,members\nc0,skip-chan-0,skip-user0|skip-user1\nc1,skip-chan-1,skip-user0|skip-user1\n');
    await writeInput(dir, 'messages.csv', `${messages.join('\n')}\n`);
    const { path } = await writePipeline(dir, `name: exact-kills-skips
options: { chunkRecords: 10, concurrency: 2 }
stages:
  users: { source: { path: users.csv }, key: id, skip: [{ field: status, equals: gone }], mapping: { name: username, displayName: username, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, skip: [{ field: author, equals: nobody }, { field: text, equals: DROP }], mapping: { type: { const: TEXT }, user: author, body: text } }
`);
    const args = ['import', path, '--state', join(dir, 'state'), '--json'];
    const kills = [
      'stage-done:1:before:"stage":"users"',
      'chunk-written:3:torn:"stage":"messages"',
      'part-ended:2:before:"stage":"messages"',
      'stage-done:1:after:"stage":"messages"',
    ];
    for (const at of kills) expect((await chatportKilledAt(args, f.env, at)).signal, at).toBe('SIGKILL');

    const final = await chatportProcess(args, f.env);
    expect(final.code, final.stderr).toBe(0);
    const report = JSON.parse(final.stdout) as { attempt: number; runDir: string; skippedDir: string; totals: { balanced: boolean; skipped: number }; stages: Record<string, { skipped: number }> };
    expect(report.attempt).toBe(kills.length + 1);
    expect(report.totals.balanced).toBe(true);
    expect(report.stages.users).toMatchObject({ read: 8, imported: 4, skipped: 4 });
    expect(report.stages.messages).toMatchObject({ read: 60, imported: 52, skipped: 8 });
    expect(report.skippedDir).toBe(join(report.runDir, 'skipped'));

    const listedUsers = await skippedLines(report.runDir, 'users');
    expect(listedUsers.map((u) => [u.index, u.rule])).toEqual([[2, 0], [5, 0], [6, -1], [7, -1]]);
    const listedMessages = await skippedLines(report.runDir, 'messages');
    expect(listedMessages.map((m) => [m.record?.id, m.rule])).toEqual(Array.from({ length: 8 }, (_, k) => [`m${7 * k + 6}`, 1]));
    expect(listedUsers.length + listedMessages.length).toBe(report.totals.skipped);
  }, 90_000);

  it('keeps every rejected and duplicate line after a kill just after a stage\'s end', async () => {
    const dir = join(f.dir, 'exact-kills-rejects');
    // 30 good messages, then 300 rejected (no author) and 300 duplicates of m0: the stage ends on lines still buffered.
    const messages = ['id,channel,author,text', ...Array.from({ length: 30 }, (_, i) => `m${i},c0,rej-user0,message ${i}`),
      ...Array.from({ length: 300 }, (_, i) => `r${i},c0,,rejected ${i}`), ...Array.from({ length: 300 }, () => 'm0,c0,rej-user0,message 0')];
    await writeInput(dir, 'users.csv', 'id,username\nu0,rej-user0\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc0,rej-chan-0,rej-user0\n');
    await writeInput(dir, 'messages.csv', `${messages.join('\n')}\n`);
    const { path } = await writePipeline(dir, `name: exact-kills-rejects
options: { chunkRecords: 10 }
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: username, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, user: author, body: text } }
`);
    const args = ['import', path, '--state', join(dir, 'state'), '--json', '--max-rejects', '1000'];
    expect((await chatportKilledAt(args, f.env, 'stage-done:1:after:"stage":"messages"')).signal).toBe('SIGKILL');
    const final = await chatportProcess(args, f.env);
    // 2: completed with rejects.
    expect(final.code, final.stderr).toBe(2);
    const report = JSON.parse(final.stdout) as { runDir: string; stages: Record<string, object> };
    expect(report.stages.messages).toMatchObject({ read: 630, imported: 30, rejected: 300, duplicates: 300 });
    const lines = async (file: string) => (await readFile(join(report.runDir, file), 'utf8')).split('\n').filter(Boolean).length;
    expect(await lines('rejects/messages.ndjson')).toBe(300);
    expect(await lines('duplicates/messages.ndjson')).toBe(300);
  }, 60_000);
});
