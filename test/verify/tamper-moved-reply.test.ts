/**
 * A reply moved to another thread (deleted, and posted with the same content under another root, as
 * another client would): verification must say it is misplaced, naming the thread it belongs in and the
 * one holding it, as a message in the wrong channel is named; not one missing and one extra. A reply moved
 * and changed is missing and extra: a move keeps the content.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all } from '../import/support.js';
import { importThreads, inChannel } from './threads-case.js';
import { sandboxAndHand } from './by-hand.js';

const t = sandboxAndHand();

const importThreadsAs = (name: string) => importThreads(t.f, name);
const root = (channelName: string, body: string) => inChannel(t.f, channelName, body);

/** Deletes the reply of `body` under `from` and posts it (body changed by `edit`) under `to`; answers the new id. */
async function moveReply(from: Message, body: string, to: Message, edit = (b: string) => b): Promise<string> {
  const reply = (await all(t.f.client.threads.messages(replyThreadIdOf(from)!))).find((m) => m.body === body)!;
  await t.hand.call('DELETE', `/messages/${String(reply.id)}`);
  const posted = await t.hand.call('POST', `/threads/${String(replyThreadIdOf(to))}/messages`, { type: reply.type, body: edit(reply.body!), user: { username: reply.user!.name }, properties: reply.properties });
  return String(posted.id);
}

describe('a reply moved to another thread', () => {
  it('is misplaced, naming the thread it belongs in and the one holding it (same channel, and another channel)', async () => {
    const config = await importThreadsAs('mv');
    const one = await root('mvone', 'root one');
    const inTwo = await moveReply(one, 'reply 2 to one', await root('mvone', 'root two'));
    const inFive = await moveReply(one, 'reply 1 to one', await root('mvtwo', 'root five'));
    const { differences, summary } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey, d.channelKey, d.platformId, d.foundIn, d.foundInThread])).toEqual([
      ['misplaced', 'm3', 'c1', inFive, 'c2', 'm5'],
      ['misplaced', 'm4', 'c1', inTwo, 'c1', 'm2'],
    ]);
    expect(differences[1]!.message).toMatch(new RegExp(`^reply m4 \\(.*messages\\.csv:5\\) belongs in the reply thread of m1 but is in the reply thread of m2 \\(message ${inTwo}\\)$`));
    expect(summary.counts).toMatchObject({ misplaced: 2, missing: 0, extra: 0 });
    expect(summary.stages.messages).toMatchObject({ expected: 8, verified: 6 });
  });

  it('moved under a message the source gives no replies: misplaced, naming that message', async () => {
    const config = await importThreadsAs('mvp');
    const plain = await root('mvpone', 'plain');
    const moved = await moveReply(await root('mvpone', 'root one'), 'reply 2 to one', plain);
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey, d.platformId, d.foundIn, d.foundInThread])).toEqual([['misplaced', 'm4', moved, 'c1', undefined]]);
    expect(differences[0]!.message).toMatch(new RegExp(`^reply m4 \\(.*\\) belongs in the reply thread of m1 but is in the reply thread of message ${String(plain.id)} \\(message ${moved}\\)$`));
  });

  it('moved and changed: missing in its thread, extra in the other', async () => {
    const config = await importThreadsAs('mvc');
    const moved = await moveReply(await root('mvcone', 'root one'), 'reply 2 to one', await root('mvcone', 'root two'), (b) => `${b}!`);
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey ?? d.platformId])).toEqual([['missing', 'm4'], ['extra', moved]]);
  });
});
