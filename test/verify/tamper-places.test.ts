/**
 * Messages whose type or place changed on the platform behind chatport's back (deleted and posted again as
 * another client would): verification must name the one message and what changed (its type; the thread or
 * channel it belongs in and the one holding it), not one missing and one extra; and the replies of a root
 * deleted on the platform must be named as what they are (their root is gone), not as "not in channel".
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { findLatestRun } from '../../src/pipeline/verify/latest-run.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import type { Difference } from '../../src/pipeline/verify/types.js';
import { all } from '../import/support.js';
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

/** Deletes `message` and posts it as it was (sender, body, properties) to `path` (a channel's or a thread's messages); answers the new id. */
async function moveTo(message: Message, path: string): Promise<string> {
  await t.hand.call('DELETE', `/messages/${String(message.id)}`);
  const posted = await t.hand.call('POST', path, { type: message.type, body: message.body, user: { username: message.user!.name }, properties: message.properties });
  return String(posted.id);
}

const threadOf = (root: Message) => `/threads/${String(replyThreadIdOf(root))}/messages`;
const where = (differences: Difference[]) => differences.map((d) => [d.kind, d.sourceKey, d.channelKey, d.platformId, d.foundIn, d.foundInThread]);

describe('a message moved between its thread and its channel', () => {
  it('a reply moved into its channel is misplaced, naming its thread and the channel', async () => {
    const config = await importMessages('rc');
    const [one] = [await inChannelNamed('rcone', 'root one')];
    const reply = (await all(t.f.client.threads.messages(replyThreadIdOf(one)!))).find((m) => m.body === 'reply 2 to one')!;
    const id = await moveTo(reply, `/channels/${String(one.channelId)}/messages`);
    const { differences, summary } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(where(differences)).toEqual([['misplaced', 'm4', 'c1', id, 'c1', undefined]]);
    expect(differences[0]!.message).toMatch(new RegExp(`^reply m4 \\(.*messages\\.csv:5\\) belongs in the reply thread of m1 but is in channel c1 \\(message ${id}\\)$`));
    expect(summary.counts).toMatchObject({ misplaced: 1, missing: 0, extra: 0 });
  });

  it('a reply moved into its channel where a channel message was deleted: misplaced, and that one missing (not one changed message)', async () => {
    const config = await importMessages('rd');
    const one = await inChannelNamed('rdone', 'root one');
    await t.hand.call('DELETE', `/messages/${String((await inChannelNamed('rdone', 'plain')).id)}`);
    const reply = (await all(t.f.client.threads.messages(replyThreadIdOf(one)!))).find((m) => m.body === 'reply 1 to one')!;
    const id = await moveTo(reply, `/channels/${String(one.channelId)}/messages`);
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(where(differences)).toEqual([['misplaced', 'm3', 'c1', id, 'c1', undefined], ['missing', 'm8', 'c1', undefined, undefined, undefined]]);
  });

  it('a channel message moved into a thread is misplaced, naming its channel and the thread', async () => {
    const config = await importMessages('ct');
    const id = await moveTo(await inChannelNamed('ctone', 'plain'), threadOf(await inChannelNamed('ctone', 'root one')));
    const { differences, summary } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(where(differences)).toEqual([['misplaced', 'm8', 'c1', id, 'c1', 'm1']]);
    expect(differences[0]!.message).toMatch(new RegExp(`^message m8 \\(.*messages\\.csv:9\\) belongs in channel c1 but is in the reply thread of m1 \\(message ${id}\\)$`));
    expect(summary.counts).toMatchObject({ misplaced: 1, missing: 0, extra: 0 });
  });

  it('moved into another channel\'s thread, and changed on the way: missing and extra', async () => {
    const config = await importMessages('cx');
    const plain = await inChannelNamed('cxone', 'plain');
    const id = await moveTo({ ...plain, body: 'plain!' }, threadOf(await inChannelNamed('cxtwo', 'root five')));
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey ?? d.platformId])).toEqual([['missing', 'm8'], ['extra', id]]);
  });
});

describe('a root deleted on the platform (its replies went with it)', () => {
  it('names its replies as gone with their thread, with the run folder\'s roots and without', async () => {
    const config = await importMessages('dr');
    await t.hand.call('DELETE', `/messages/${String((await inChannelNamed('drone', 'root two')).id)}`);
    const run = (await findLatestRun(join(t.f.dir, 'dr', 'state')))!;
    for (const outDir of [undefined, run.runDir]) {
      const { differences } = await runVerify({ config, sample: 0, ...(outDir ? { outDir } : {}) }, { client: t.f.client });
      expect(differences.map((d) => [d.kind, d.sourceKey])).toEqual([['missing', 'm2'], ['missing', 'm6']]);
      expect(differences[0]!.message).toMatch(/^message m2 \(.*messages\.csv:3\) is not in channel c1$/);
      expect(differences[1]!.message).toMatch(/^reply m6 \(.*messages\.csv:7\) is not on the platform, nor is its thread: its root m2 \(.*messages\.csv:3\) is missing$/);
    }
  });

  it('an orphan (its root is in no source) not in its channel: says it belongs there because its root is not on the platform', async () => {
    const config = await importThreads(t.f, 'od', true, ['m9,c1,a,reply to nothing,m99']);
    await t.hand.call('DELETE', `/messages/${String((await inChannelNamed('odone', 'reply to nothing')).id)}`);
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey])).toEqual([['missing', 'm9']]);
    expect(differences[0]!.message).toMatch(/^reply m9 \(.*messages\.csv:10\) is not in channel c1, where it belongs as the root of its thread, m99, is not on the platform$/);
  });
});

describe('a message sent twice', () => {
  it('the second copy is extra, named as a copy of the message it repeats (by its key)', async () => {
    const config = await importMessages('du');
    const plain = await inChannelNamed('duone', 'plain');
    const copy = await t.hand.call('POST', `/channels/${String(plain.channelId)}/messages`, { type: plain.type, body: plain.body, user: { username: plain.user!.name }, properties: plain.properties });
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey, d.platformId])).toEqual([['extra', undefined, String(copy.id)]]);
    expect(differences[0]!.message).toMatch(new RegExp(`^message ${String(copy.id)} in channel c1 is a second copy of message m8 \\(.*messages\\.csv:9\\), held as message ${String(plain.id)}$`));
  });
});

describe('a missing message whose copies another channel holds, changed', () => {
  it('names each copy a second copy of it, though nothing near the missing one was read in full', async () => {
    const config = await importMessages('dx');
    const plain = await inChannelNamed('dxone', 'plain');
    const other = await inChannelNamed('dxtwo', 'root five');
    const copies: string[] = [];
    for (const body of ['plain, copied', 'plain, copied again'])
      copies.push(String((await t.hand.call('POST', `/channels/${String(other.channelId)}/messages`, { type: plain.type, body, user: { username: plain.user!.name }, properties: plain.properties })).id));
    await t.hand.call('DELETE', `/messages/${String(plain.id)}`);
    const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.sourceKey ?? d.platformId])).toEqual([['missing', 'm8'], ['extra', copies[0]], ['extra', copies[1]]]);
    expect(differences[1]!.message).toMatch(new RegExp(`^message ${copies[0]} in channel c2 is a second copy of message m8 \\(.*messages\\.csv:9\\), held as message ${copies[1]}$`));
  });
});

describe('a channel renamed on the platform', () => {
  it('is changed in name, saying the name it has there', async () => {
    const config = await importMessages('rn');
    const channel = (await all(t.f.client.channels.list())).find((c) => c.name === 'rnone')!;
    await t.hand.mergePatch(`/channels/${String(channel.id)}`, { name: 'rnone-renamed', displayName: 'Renamed' });
    const { differences, summary } = await runVerify({ config, sample: 0 }, { client: t.f.client });
    expect(differences.map((d) => [d.kind, d.stage, d.sourceKey, d.fields])).toEqual([['changed', 'channels', 'c1', ['name', 'displayName']]]);
    expect(differences[0]!.message).toBe('channel c1 ("rnone") is named "rnone-renamed" on the platform, and differs there in displayName');
    expect(summary.stages.messages).toMatchObject({ expected: 8, verified: 8 });
  });
});
