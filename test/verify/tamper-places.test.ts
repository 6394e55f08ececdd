/**
 * Messages whose type or place changed on the platform behind chatport's back (deleted and posted again as
 * another client would): verification must name the one message and what changed (its type; the thread or
 * channel it belongs in and the one holding it), not one missing and one extra; and the replies of a root
 * deleted on the platform must be named as what they are (their root is gone), not as "not in channel".
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { importThreads, inChannel } from './threads-case.js';
import { sandboxAndHand } from './by-hand.js';

const t = sandboxAndHand();

const importMessages = (name: string, thread = true) => importThreads(t.f, name, thread);
const inChannelNamed = (channelName: string, body: string) => inChannel(t.f, channelName, body);

/** Deletes the message and posts it again at its channel's end as the application's (SYSTEM_TEXT: no sender); answers the new id. */
async function postAsSystem(message: Message): Promise<string> {
  await t.hand.call('DELETE', `/messages/${String(message.id)}`);
  const posted = await t.hand.call('POST', `/channels/${String(message.channelId)}/messages`, { type: 'SYSTEM_TEXT', body: message.body, properties: message.properties });
  return String(posted.id);
}

const named = (differences: ReadonlyArray<{ kind: string; sourceKey?: string; platformId?: string; fields?: string[] }>) => differences.map((d) => [d.kind, d.sourceKey, d.platformId, d.fields]);

describe('a message held with another type', () => {
  it('is one changed message, field type, when it carries the record\'s key', async () => {
    const config = await importMessages('ty');
    const id = await postAsSystem(await inChannelNamed('tyone', 'plain'));
    const { differences, summary } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(named(differences)).toEqual([['changed', 'm8', id, ['type', 'user']]]);
    expect(differences[0]!.message).toMatch(new RegExp(`^message m8 \\(.*messages\\.csv:9\\) differs on the platform \\(message ${id}\\) in type, user$`));
    expect(summary.stages.messages).toMatchObject({ expected: 8, verified: 7 });
  });

  it('without keys: one changed message when it is the same at the same place but for its type and sender', async () => {
    const config = await importMessages('tn', false);
    const id = await postAsSystem(await inChannelNamed('tnone', 'plain'));
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(named(differences)).toEqual([['changed', 'm8', id, ['type', 'user']]]);
  });

  it('without keys, another body too: another message (missing and extra)', async () => {
    const config = await importMessages('to', false);
    const plain = await inChannelNamed('toone', 'plain');
    await postAsSystem({ ...plain, body: 'other' });
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => d.kind)).toEqual(['missing', 'extra']);
  });
});
