import { describe, expect, it } from 'vitest';
import { MattermostPost, mattermostThread } from '../../src/transform/mattermost/index.js';
import { parseRecord } from '../../src/transform/slack/records.js';

const reply = (user: string, message: string, create_at: number) => ({ user, type: '', message, create_at, edit_at: 0, flagged_by: null, reactions: null, attachments: null });

describe('a Mattermost post\'s replies', () => {
  it('go into the thread by create_at: the export lists them by post id, which is random', () => {
    // As `mmctl export create` writes a post line: replies ordered by their (random) ids.
    const parsed = parseRecord(MattermostPost, {
      team: 'acme', channel: 'town-square', user: 'ana', type: '', message: 'question?', props: {}, create_at: 1700000000000, edit_at: 0, flagged_by: null, reactions: null,
      replies: [reply('bo', 'third answer', 1700000300000), reply('ana', 'first answer', 1700000100000), reply('cy', 'same time, listed first', 1700000200000), reply('bo', 'same time, listed second', 1700000200000)],
      attachments: null, is_pinned: false,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed));
    const names = { user: (u: string) => u, channel: () => undefined };
    const bodies = mattermostThread(parsed.value, 'acme/town-square', 'acme', names, { file: 'e.jsonl', index: 0 }).map((o) => (o.kind === 'message' ? o.message.body : o.kind));
    expect(bodies).toEqual(['question?', 'first answer', 'same time, listed first', 'same time, listed second', 'third answer']);
  });
});
