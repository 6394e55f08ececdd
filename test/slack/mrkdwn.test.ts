import { describe, expect, it } from 'vitest';
import { convertMrkdwn, type MentionLookup } from '../../src/transform/slack/index.js';
import { rng } from '../helpers/rng.js';

const lookup: MentionLookup = {
  user: (id) => ({ U1: 'ana', U2: 'bo' })[id],
  channel: (id) => ({ C1: 'general' })[id],
};
const text = (input: string) => convertMrkdwn(input, lookup).text;

describe('mrkdwn to readable text', () => {
  it.each([
    ['hi <@U1>', 'hi @ana'],
    ['hi <@U1|someone-else>', 'hi @ana'],
    ['hi <@U404|stranger>', 'hi @stranger'],
    ['hi <@U404>', 'hi @U404'],
    ['see <#C1|old-name>', 'see #general'],
    ['see <#C9|elsewhere>', 'see #elsewhere'],
    ['see <#C9>', 'see #C9'],
    ['<!here> <!channel> <!everyone>', '@here @channel @everyone'],
    ['<!here|@here> look', '@here look'],
    ['ping <!subteam^S1|@oncall>', 'ping @oncall'],
    ['ping <!subteam^S1>', 'ping @S1'],
    ['due <!date^1600100000^{date_short}|Sep 14, 2020>', 'due Sep 14, 2020'],
    ['due <!date^1600100000^{date_short}>', 'due 2020-09-14T16:13:20.000Z'],
    ['<https://x.invalid/a?b=1&amp;c=2|the docs>', 'the docs (https://x.invalid/a?b=1&c=2)'],
    ['<https://x.invalid/plain>', 'https://x.invalid/plain'],
    ['<https://x.invalid|https://x.invalid>', 'https://x.invalid'],
    ['<mailto:a@x.invalid|a@x.invalid>', 'a@x.invalid'],
    ['<mailto:a@x.invalid|write to us>', 'write to us (a@x.invalid)'],
    ['<mailto:a@x.invalid>', 'a@x.invalid'],
    ['a &amp; b &lt;tag&gt; &amp;lt;', 'a & b <tag> &lt;'],
    ['*bold* _italic_ ~strike~ :tada: &gt; quote', '*bold* _italic_ ~strike~ :tada: > quote'],
    ['שלום <@U2> 👍🏽', 'שלום @bo 👍🏽'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('reports what was mentioned, once each', () => {
    expect(convertMrkdwn('<@U1> <@U1|a> <#C1|g> <!here> <!subteam^S1|@x>', lookup).mentions).toEqual({ users: ['U1'], channels: ['C1'], groups: ['S1'], broadcasts: ['here'] });
  });

  it('converts as the regex pass it replaced: tokens and entities left to right, each token as it converts alone', () => {
    const TOKEN = /<([^<>]*)>|&(amp|lt|gt|quot|#39|#x27|apos);/g;
    const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", apos: "'" };
    const pieces = ['<', '>', '&', 'amp;', 'lt;', 'gt;', 'quot;', '#39;', '#x27;', 'apos;', '&amp', ';', '@U1', '@U404', '#C1', '!here', '!subteam^S1', '|', '|@x', 'mailto:a@x', 'https://x.invalid/?a=1&amp;b', 'a', ' ', '\n', '👍'];
    const random = rng(41);
    for (let i = 0; i < 5_000; i++) {
      const input = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const mentions: Record<string, string[]> = { users: [], channels: [], groups: [], broadcasts: [] };
      const expected = input.replace(TOKEN, (_m, token: string | undefined, entity: string | undefined) => {
        if (entity !== undefined) return ENTITIES[entity]!;
        const alone = convertMrkdwn(`<${token}>`, lookup);
        for (const [kind, ids] of Object.entries(alone.mentions)) for (const id of ids) if (!mentions[kind]!.includes(id)) mentions[kind]!.push(id);
        return alone.text;
      });
      expect(convertMrkdwn(input, lookup), input).toEqual({ text: expected, mentions });
    }
  });
});
