/**
 * Replies missing from their thread (an import stopped before its replies pass leaves millions) are named as
 * the source's second read passes them, each handed to the difference sink there, not held until the end.
 */
import { describe, expect, it } from 'vitest';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { ExpectedReplies } from '../../src/pipeline/verify/expected-replies.js';
import { Interner } from '../../src/pipeline/verify/message-columns.js';
import type { SourceMessage } from '../../src/pipeline/verify/source-messages.js';
import type { Difference } from '../../src/pipeline/verify/types.js';
import { settleThreads, verifyThreads, type NameReplies } from '../../src/pipeline/verify/verify-threads.js';
import { sandboxAndHand } from './by-hand.js';
import { importThreads, inChannel } from './threads-case.js';

const t = sandboxAndHand();
const LATE = 30;

describe('replies missing from their thread', () => {
  it('are named one by one as the second read passes them, into the sink', async () => {
    const config = await importThreads(t.f, 'rs');
    const thread = replyThreadIdOf(await inChannel(t.f, 'rsone', 'root one'))!;
    const [authors, types] = [new Interner(), new Interner()];
    const replies = new ExpectedReplies();
    const reply = (key: string, user: string, body: string, ordinal: number) => replies.push({ parent: 'm1', key, channelKey: 'c1', token: { author: authors.id(user), type: types.id('TEXT'), length: body.length }, ordinal });
    // m3 and m4 are held in m1's thread; LATE replies after them are not.
    reply('m3', 'rsb', 'reply 1 to one', 2);
    reply('m4', 'rsa', 'reply 2 to one', 3);
    for (let k = 0; k < LATE; k++) reply(`r${k}`, 'rsa', `late ${k}`, 10 + k);
    const sink: Difference[] = [];
    const namedBefore: number[] = [];
    const nameReplies: NameReplies = async (ordinals, streamed) => {
      streamed?.ordinals.forEach((ordinal, at) => {
        namedBefore.push(sink.length);
        const src: SourceMessage = { sourceKey: `r${ordinal - 10}`, position: { file: 'messages.csv', line: ordinal + 2, index: ordinal }, channelKey: 'c1', item: {} };
        streamed.visit(at, src);
      });
      return new Map([...ordinals].map((o) => [o, undefined!]));
    };
    const stage = config.stages.find((s) => s.stage === 'messages')!;
    const threads = await verifyThreads(t.f.client, stage, replies, replies.threadRoots(), () => thread, nameReplies, { authors, types, sample: new Set() });
    await settleThreads(threads, [], replies, nameReplies, undefined, (d) => sink.push(d));
    // Each handed over before the read passed the next: none held for the end.
    expect(namedBefore).toEqual(Array.from({ length: LATE }, (_, k) => k));
    expect(sink.map((d) => d.message)).toEqual(Array.from({ length: LATE }, (_, k) => `reply r${k} (messages.csv:${k + 12}) is not in the reply thread of m1`));
    expect(threads.differences).toEqual([]);
    expect(threads.verified).toBe(2);
  }, 60_000);
});
