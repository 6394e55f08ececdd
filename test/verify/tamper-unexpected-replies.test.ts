/**
 * Replies the platform holds under messages the source gives none (docs/verify.md "Reply threads"): an
 * import that verifies exact, then a reply posted over HTTP, as another client would, under a plain channel
 * message or under an orphan. Verification must name exactly that reply as extra, with the message it
 * hangs from; on a clean platform it reads no thread beyond the roots'.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { all, writeInput, writePipeline } from '../import/support.js';
import { sandboxAndHand } from './by-hand.js';

const t = sandboxAndHand();

/** Two channels; with `thread: parent`, m1 and m2 are roots, m7 an orphan (its parent m99 is nowhere). */
async function writeSource(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.csv', `id,username,display\n1,${prefix}a,A\n2,${prefix}b,B\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc1,${prefix}one,${prefix}a|${prefix}b\nc2,${prefix}two,${prefix}a|${prefix}b\n`);
  const rows = ['m1,c1,a,root one,', 'm2,c2,b,root two,', 'm3,c1,b,reply 1 to one,m1', 'm4,c1,a,plain,', 'm5,c2,a,reply 1 to two,m2', 'm6,c1,a,reply 2 to one,m1', 'm7,c1,b,reply to nothing,m99'];
  await writeInput(dir, 'messages.csv', ['id,channel,author,text,parent', ...rows.map((r) => r.replace(/,(a|b),/, `,${prefix}$1,`)), ''].join('\n'));
}

const pipeline = (name: string, thread: string) => `name: ${name}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, ${thread}mapping: { type: { const: TEXT }, user: author, body: text } }
`;

/** Imports the source and checks that it verifies exact; answers the pipeline. */
async function importExact(name: string, prefix: string, thread: string): Promise<PipelineConfig> {
  const dir = join(t.f.dir, name);
  await writeSource(dir, prefix);
  const { config } = await writePipeline(dir, pipeline(name, thread));
  await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: t.f.client }).then((r) => expect(r.verification?.status).toBe('exact'));
  return config;
}

async function channelMessage(channelName: string, body: string): Promise<Message> {
  const channel = (await all(t.f.client.channels.list())).find((c) => c.name === channelName)!;
  return (await all(t.f.client.channels.messages(channel.id))).find((m) => m.body === body)!;
}

/** Posts a reply under `parent` as another client does (a copy of `copy`, its key included, when given); answers its id. */
async function replyByHand(parent: Message, username: string, copy?: Message): Promise<string> {
  const reply = copy ? { type: copy.type, body: copy.body, user: { username: copy.user!.name }, properties: copy.properties } : { type: 'TEXT', body: 'a reply chatport never sent', user: { username } };
  const posted = await t.hand.call('POST', `/threads/${String(replyThreadIdOf(parent))}/messages`, reply);
  return String(posted.id);
}

const threadReads = () => t.f.sandbox.requests().filter((r) => r.method === 'GET' && /^\/threads\/\d+\/messages$/.test(r.path)).length;

/** Verification's differences as `kind id channel`, and the thread reads it made. */
async function verifyNamed(config: PipelineConfig): Promise<{ named: string[]; messages: string[]; threadReads: number }> {
  t.f.sandbox.clearRequests();
  const { differences } = await runVerify({ config, sample: 0 }, { client: t.f.client });
  return { named: differences.map((d) => `${d.kind} ${d.platformId ?? d.sourceKey} ${d.channelKey ?? "-"}`), messages: differences.map((d) => d.message), threadReads: threadReads() };
}

/**
 * Posts a reply by hand under the message of `channelName` with `body`; verification must name it, and
 * only it, as extra with that message, reading one thread more than the clean platform's baseline.
 */
async function expectReplyNamed(config: PipelineConfig, under: { channelName: string; body: string; username: string; copy?: Message }, baseline: number): Promise<void> {
  const parent = await channelMessage(under.channelName, under.body);
  const reply = await replyByHand(parent, under.username, under.copy);
  const after = await verifyNamed(config);
  expect(after.named).toEqual([`extra ${reply} c1`]);
  expect(after.messages).toEqual([`the reply thread of message ${String(parent.id)} in channel c1 holds message ${reply}, which the source does not reply there`]);
  expect(after.threadReads).toBe(baseline + 1);
}

describe('replies under messages the source gives none', () => {
  it('a reply posted under a plain channel message of a CSV import is extra, named with that message', async () => {
    const config = await importExact('plain-reply', 'pr', '');
    expect(await verifyNamed(config)).toEqual({ named: [], messages: [], threadReads: 0 });
    await expectReplyNamed(config, { channelName: 'prone', body: 'plain', username: 'prb' }, 0);
  });

  it('a reply posted under an orphan of a thread: import is extra; a clean platform costs no read beyond the roots\' threads', async () => {
    const config = await importExact('orphan-reply', 'or', 'thread: parent, ');
    // The baseline: the two roots' threads, read once each; nothing for the plain message or the orphan.
    expect(await verifyNamed(config)).toEqual({ named: [], messages: [], threadReads: 2 });
    await expectReplyNamed(config, { channelName: 'orone', body: 'reply to nothing', username: 'ora' }, 2);
  });

  it('a reply left twice, once in its root\'s thread and once under a reply\'s channel copy (an older chatport\'s chain): the copy is extra', async () => {
    const config = await importExact('reply-twice', 'rt', 'thread: parent, ');
    const [first] = await all(t.f.client.threads.messages(replyThreadIdOf(await channelMessage('rtone', 'root one'))!));
    await expectReplyNamed(config, { channelName: 'rtone', body: 'reply to nothing', username: 'rtb', copy: first! }, 2);
  });

  it('a root holding all its replies and one more: that one is extra (the thread comparison names it)', async () => {
    const config = await importExact('root-more', 'rm', 'thread: parent, ');
    const reply = await replyByHand(await channelMessage('rmtwo', 'root two'), 'rma');
    const after = await verifyNamed(config);
    expect(after.named).toEqual([`extra ${reply} c2`]);
    expect(after.threadReads).toBe(2);
  });
});
