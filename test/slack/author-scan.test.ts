import { describe, expect, it } from 'vitest';
import { createSlackDirectoryBuilder, mayNameUnknownAuthor } from '../../src/transform/slack/index.js';

const isKnown = { user: (id: string) => id === 'U1' || id === 'U2', bot: (id: string) => id === 'B1' };
/** Slack writes day files pretty-printed with four spaces. */
const dayText = (messages: unknown[]) => `${JSON.stringify(messages, null, 4)}\n`;

describe('pass 1 looks at a day file before parsing it (mayNameUnknownAuthor)', () => {
  it('clears a file whose every author is a known user, pretty-printed or compact', () => {
    const messages = [
      { type: 'message', ts: '1.000001', user: 'U1', text: 'hi "user": "UX" in a text is not a key' },
      { type: 'message', ts: '2.000001', user: 'U2', text: 'reply', thread_ts: '1.000001', parent_user_id: 'U1' },
      { type: 'message', ts: '3.000001', subtype: 'channel_join', text: 'no author at all' },
    ];
    expect(mayNameUnknownAuthor(dayText(messages), isKnown)).toBe(false);
    expect(mayNameUnknownAuthor(JSON.stringify(messages), isKnown)).toBe(false);
    expect(mayNameUnknownAuthor('[]\n', isKnown)).toBe(false);
    expect(mayNameUnknownAuthor(dayText([{ ts: '4.1', bot_id: 'B1', text: 'a known bot' }]), isKnown)).toBe(false);
  });

  it.each([
    ['an unknown user', [{ ts: '1.1', user: 'UX' }]],
    ['an unknown user nested in another field', [{ ts: '1.1', user: 'U1', edited: { user: 'UX', ts: '2.2' } }]],
    ['an empty user', [{ ts: '1.1', user: '' }]],
    ['a user that is not a string', [{ ts: '1.1', user: null }]],
    ['an unknown bot id', [{ ts: '1.1', bot_id: 'B9' }]],
    ['a bot message (it may lack a bot id)', [{ ts: '1.1', subtype: 'bot_message', bot_id: 'B1', username: 'hook' }]],
  ])('sends %s to the full parse', (_what, messages) => {
    expect(mayNameUnknownAuthor(dayText(messages), isKnown)).toBe(true);
  });

  it('sends a user id or a key written with escapes to the full parse', () => {
    expect(mayNameUnknownAuthor('[{"ts": "1.1", "user": "U\\u0031"}]', isKnown)).toBe(true);
    expect(mayNameUnknownAuthor('[{"ts": "1.1", "\\u0075ser": "UX", "user": "U1"}]', isKnown)).toBe(true);
    // An escape in a text value alone is no reason to parse, nor an escaped backslash before a u in a key.
    expect(mayNameUnknownAuthor('[{"ts": "1.1", "user": "U1", "text": "caf\\u00e9"}]', isKnown)).toBe(false);
    expect(mayNameUnknownAuthor('[{"ts": "1.1", "user": "U1", "a\\\\u0075": "x"}]', isKnown)).toBe(false);
    expect(mayNameUnknownAuthor('[{"ts": "1.1", "user": "U1", "a\\\\\\u0075": "x"}]', isKnown)).toBe(true);
  });

  it('looks at a message of 20,000 escaped emoji in one pass (a backtracking look took a minute)', () => {
    const text = `[{"ts": "1.1", "user": "U1", "text": "${'\\ud83d\\ude00'.repeat(20_000)}"}]`;
    expect(mayNameUnknownAuthor(text, isKnown)).toBe(false);
  });

  it('an author users.json lacks is named by the first message with a profile, also when an earlier one had none', () => {
    const files = [
      dayText([{ ts: '1.1', subtype: 'channel_join', user: 'UX1', text: '<@UX1> has joined the channel' }]),
      dayText([{ ts: '2.1', user: 'UX1', text: 'hello', user_profile: { name: 'ghost.one', real_name: 'Ghost One', display_name: 'Ghost' } }]),
      dayText([{ ts: '3.1', user: 'UX1', text: 'again', user_profile: { name: 'renamed' } }]),
    ];
    const builder = createSlackDirectoryBuilder();
    let parsed = 0;
    files.forEach((text, f) => {
      if (!mayNameUnknownAuthor(text, builder.known)) return;
      parsed++;
      (JSON.parse(text) as unknown[]).forEach((m, index) => builder.noteMessage({ file: `C1/day-${f}.json`, index }, m));
    });
    const user = builder.build().users.get('UX1')!;
    expect(user.username).toBe('ghost.one');
    expect(user.placeholder).toMatchObject({ firstSeenIn: 'C1/day-0.json#0', name: 'ghost.one', realName: 'Ghost One', displayName: 'Ghost' });
    // The third file teaches nothing more: the look clears it.
    expect(parsed).toBe(2);
  });

  it('pass 1 with the look builds the same directory as parsing every file, and parses fewer', () => {
    const users = [{ id: 'U1', team_id: 'T1', name: 'ana', profile: {} }, { id: 'U2', team_id: 'T1', name: 'bo', profile: { bot_id: 'B2' } }];
    const files = [
      dayText([{ ts: '1.1', user: 'U1', text: 'plain' }]),
      dayText([{ ts: '2.1', user: 'UX1', text: 'stranger', user_profile: { name: 'guest', real_name: 'Guest', display_name: 'G' } }]),
      dayText([{ ts: '3.1', user: 'UX1', text: 'the stranger again, with another profile', user_profile: { name: 'other' } }]),
      dayText([{ ts: '4.1', subtype: 'bot_message', bot_id: 'B2', text: 'a listed bot' }, { ts: '4.2', subtype: 'bot_message', username: 'deploy' }]),
      dayText([{ ts: '4.5', bot_id: 'B2', text: 'the listed bot' }, { ts: '4.6', bot_id: 'B9', text: 'an unlisted bot' }]),
      dayText([{ ts: '4.7', bot_id: 'B9', text: 'the unlisted bot again' }, { ts: '4.8', user: 'U1' }]),
      dayText([{ ts: '5.1', '\\u0075ser': 'ignored', user: 'U2' }]).replace('"\\\\u0075ser"', '"\\u0075ser"'),
      '[{"ts": "6.1", "\\u0075ser": "UX2"}]',
      dayText([{ ts: '7.1', user: 'U2', text: 'caf\u00e9 \ud83d\ude00' }]),
    ];
    const directory = (look: boolean) => {
      const builder = createSlackDirectoryBuilder();
      users.forEach((u, index) => builder.addUser({ file: 'users.json', index }, u));
      let parsed = 0;
      files.forEach((text, f) => {
        if (look && !mayNameUnknownAuthor(text, builder.known)) return;
        parsed++;
        (JSON.parse(text) as unknown[]).forEach((m, index) => builder.noteMessage({ file: `C1/day-${f}.json`, index }, m));
      });
      return { built: builder.build(), parsed };
    };
    const everything = directory(false);
    const looked = directory(true);
    expect(looked.built).toEqual(everything.built);
    expect(everything.parsed).toBe(files.length);
    // Files 0, 2 (UX1 is named by then) and 8 are cleared by the look; 5 is parsed, as B9 has no name yet.
    expect(looked.parsed).toBe(files.length - 3);
  });
});
