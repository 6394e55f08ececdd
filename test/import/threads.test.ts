import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { compareInt64 } from '../../src/shared/int64.js';
import type { ChatportClient } from '../../src/api/index.js';
import type { Message } from '../../src/wire/resources.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { formatReportTable, type RunReport } from '../../src/pipeline/report.js';
import { CHANNEL_KEY_PROPERTY, PIPELINE_PROPERTY } from '../../src/transform/index.js';
import { all, runCli, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

async function writeThreaded(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.csv', `id,username,display\n1,${prefix}a,A\n2,${prefix}b,B\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc1,${prefix}one,${prefix}a|${prefix}b\nc2,${prefix}two,${prefix}a|${prefix}b\n`);
  await writeInput(
    dir,
    'messages.csv',
    [
      'id,channel,author,text,parent',
      `m1,c1,${prefix}a,root one,`,
      `m2,c2,${prefix}b,root two,`,
      `m3,c1,${prefix}b,reply 1 to one,m1`,
      `m4,c1,${prefix}a,plain,`,
      `m5,c2,${prefix}a,reply 1 to two,m2`,
      `m6,c1,${prefix}a,reply 2 to one,m1`,
      `m7,c1,${prefix}b,reply to nothing,m99`,
      `m8,c1,${prefix}b,reply 3 to one,m1`,
      '',
    ].join('\n'),
  );
}

const pipeline = (name: string, threads = '') => `name: ${name}
options: { chunkRecords: 2${threads} }
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, thread: parent, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

async function channelNamed(name: string) {
  return (await all(f.client.channels.list())).find((c) => c.name === name)!;
}

async function threadBodies(root: Message): Promise<string[]> {
  return (await all(f.client.threads.messages(replyThreadIdOf(root)!))).map((m) => m.body!);
}

const sorted = (messages: Message[]) => messages.sort((a, b) => compareInt64(a.id, b.id));

/** The source's text of a message changed, as an export re-made after an edit. */
async function editText(dir: string, from: string, to: string): Promise<void> {
  const path = join(dir, 'messages.csv');
  await writeFile(path, (await readFile(path, 'utf8')).replace(`,${from},`, `,${to},`));
}

/**
 * The client and a signal, one call of the group made to stop the run right after the platform answered it,
 * as a kill -9 then would: the signal aborted, the call failing.
 */
function killedAfter<K extends 'messages' | 'threads'>(group: K, call: keyof ChatportClient[K]): { client: ChatportClient; signal: AbortSignal } {
  const stop = new AbortController();
  const real = f.client[group] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const wrapped = { ...real, [call]: async (...args: unknown[]) => {
    await real[call as string]!(...args);
    stop.abort(new Error('killed'));
    throw new Error('killed');
  } };
  return { client: new Proxy(f.client, { get: (target, name) => (name === group ? wrapped : Reflect.get(target, name)) }), signal: stop.signal };
}

const changedLines = async (runDir: string) =>
  (await readFile(join(runDir, 'changed', 'messages.ndjson'), 'utf8')).trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

/** What the report's accounting must say of every run: each record read is counted once. */
function expectBalanced(counts: { read: number; imported: number; duplicates?: number; rejected: number; skipped: number }): void {
  expect(counts.imported + (counts.duplicates ?? 0) + counts.rejected + counts.skipped).toBe(counts.read);
}

describe('reply threads (thread: parent)', () => {
  it('a first run reads a channel it created only as far as its roots: it can hold no earlier run\'s copy of a reply', async () => {
    const dir = join(f.dir, 'first-run-reads');
    await writeInput(dir, 'users.csv', 'id,username,display\n1,fr-a,A\n2,fr-b,B\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,fr-one,fr-a|fr-b\n');
    // The root first, then two pages of plain messages, then its reply.
    const plain = Array.from({ length: 150 }, (_, i) => `p${i},c1,fr-a,plain ${i},`);
    await writeInput(dir, 'messages.csv', ['id,channel,author,text,parent', 'm1,c1,fr-b,root,', ...plain, 'm2,c1,fr-a,the reply,m1', ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('first-run-reads'));
    f.sandbox.clearRequests();
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ imported: 152, replies: 1 });
    const channel = await channelNamed('fr-one');
    const pageReads = f.sandbox.requests().filter((r) => r.method === 'GET' && r.path === `/channels/${String(channel.id)}/messages`);
    // The roots step finds m1 on the first page and stops; nothing reads the channel to its end.
    expect(pageReads).toHaveLength(1);
  });

  it('replies go into their root\'s thread in source order, repliesCount right; a reply to an unknown key goes into the channel', async () => {
    const dir = join(f.dir, 'threads');
    await writeThreaded(dir, 'th');
    const { config } = await writePipeline(dir, pipeline('threads'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 8, imported: 8, rejected: 0, pending: 0, replies: 4, orphans: 1 });
    expect(report.totals.balanced).toBe(true);

    const one = sorted(await all(f.client.channels.messages((await channelNamed('thone')).id)));
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing']);
    expect(one[0]!.repliesCount).toBe(3);
    expect(await threadBodies(one[0]!)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
    const two = sorted(await all(f.client.channels.messages((await channelNamed('thtwo')).id)));
    expect(await threadBodies(two[0]!)).toEqual(['reply 1 to two']);
    expect(report.verification?.status).toBe('exact');

    // Verification reads the threads: a reply deleted on the platform is missing from its thread.
    const [, second] = await all(f.client.threads.messages(replyThreadIdOf(one[0]!)!));
    const token = f.sandbox.issueToken();
    await fetch(`${f.sandbox.url}/messages/${second!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    const { runVerify } = await import('../../src/pipeline/verify/run-verify.js');
    const after = await runVerify({ config }, { client: f.client });
    expect(after.summary.status).toBe('differences');
    // Named by its source record (a second read of the source, only for replies that differ).
    expect(after.differences).toEqual([
      expect.objectContaining({ kind: 'missing', stage: 'messages', sourceKey: 'm6', channelKey: 'c1', position: expect.objectContaining({ line: 7 }), message: expect.stringMatching(/^reply m6 \(.*messages\.csv:7\) is not in the reply thread of m1$/) }),
    ]);
  });

  it('the content sample takes replies too: a reply sent again by hand with other text of its length (no edit mark) is named changed', async () => {
    const dir = join(f.dir, 'sampled-replies');
    await writeThreaded(dir, 'sr');
    const { config } = await writePipeline(dir, pipeline('sampled-replies'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 'auto' } }, { client: f.client });
    // Every message of a small import is read in full, replies as well (their thread pages carry them).
    expect(report.verification).toMatchObject({ status: 'exact', sample: { picked: 8, of: 8 }, contentChecked: 8 });

    // m8, the thread's last reply, deleted and sent again into its thread: same author, length and key, its place kept.
    const one = sorted(await all(f.client.channels.messages((await channelNamed('srone')).id)));
    const thread = replyThreadIdOf(one[0]!)!;
    const last = (await all(f.client.threads.messages(thread))).at(-1)!;
    expect(last.body).toBe('reply 3 to one');
    const token = f.sandbox.issueToken();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${f.sandbox.url}/messages/${last.id}`, { method: 'DELETE', headers })).status).toBe(200);
    const resent = await fetch(`${f.sandbox.url}/threads/${thread}/messages`, { method: 'POST', headers, body: JSON.stringify({ type: 'TEXT', body: 'reply 7 to one', user: { username: last.user!.name }, properties: last.properties }) });
    expect(resent.ok).toBe(true);

    const { runVerify } = await import('../../src/pipeline/verify/run-verify.js');
    const after = await runVerify({ config, sample: 'auto' }, { client: f.client });
    expect(after.differences).toEqual([expect.objectContaining({ kind: 'changed', stage: 'messages', sourceKey: 'm8', fields: ['body'] })]);
  });

  it('a reply naming a root of another channel stays in its own channel, as an orphan, even when that root has replies of its own channel', async () => {
    const dir = join(f.dir, 'cross-channel');
    await writeInput(dir, 'users.csv', 'id,username,display\n1,xc-a,A\n2,xc-b,B\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,xc-one,xc-a|xc-b\nc2,xc-two,xc-a|xc-b\n');
    // m3 replies to m1 in its channel, so c1 is read for m1; m2, in c2, names m1 too.
    await writeInput(dir, 'messages.csv', ['id,channel,author,text,parent', 'm1,c1,xc-a,root,', 'm2,c2,xc-b,from two,m1', 'm3,c1,xc-b,reply,m1', ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('cross-channel'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 3, replies: 1, orphans: 1 });
    const one = sorted(await all(f.client.channels.messages((await channelNamed('xc-one')).id)));
    expect(one.map((m) => m.body)).toEqual(['root']);
    expect(await threadBodies(one[0]!)).toEqual(['reply']);
    expect((await all(f.client.channels.messages((await channelNamed('xc-two')).id))).map((m) => m.body)).toEqual(['from two']);
    expect(report.verification?.status).toBe('exact');
  });

  it('a reply to itself, in a cycle of replies, or hanging from one, is an orphan in its channel, and verification agrees on every run', async () => {
    const dir = join(f.dir, 'self-replies');
    await writeInput(dir, 'users.csv', 'id,username,display\n1,sr-a,A\n2,sr-b,B\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,sr-one,sr-a|sr-b\n');
    await writeInput(dir, 'messages.csv', ['id,channel,author,text,parent', 'm1,c1,sr-a,root,', 'm2,c1,sr-b,self,m2', 'm3,c1,sr-a,cycle one,m4', 'm4,c1,sr-b,cycle two,m3', 'm5,c1,sr-a,tail,m4', ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('self-replies'));
    for (const state of ['state', 'state', 'other-state']) {
      const report = await runImport({ config, stateDir: join(dir, state), verify: {} }, { client: f.client });
      expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, orphans: 4 });
      expect(report.verification?.status).toBe('exact');
    }
    const one = sorted(await all(f.client.channels.messages((await channelNamed('sr-one')).id)));
    // Orphans of different roots are sent in parallel: each once, in its channel, in no set order.
    expect(one.map((m) => m.body).sort()).toEqual(['cycle one', 'cycle two', 'root', 'self', 'tail']);
    expect(one.map((m) => m.repliesCount)).toEqual([0, 0, 0, 0, 0]);
  });

  it('threads: flatten keeps every reply in the channel', async () => {
    const dir = join(f.dir, 'flat');
    await writeThreaded(dir, 'fl');
    const { config } = await writePipeline(dir, pipeline('threads-flat', ', threads: flatten'));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 8, imported: 8 });
    expect(report.stages.messages!.replies).toBeUndefined();
    expect((await all(f.client.channels.messages((await channelNamed('flone')).id)))).toHaveLength(6);
  });

  it('a fresh thread is not read before its first send; a run in a new state folder finds the replies already there', async () => {
    const dir = join(f.dir, 'again');
    await writeThreaded(dir, 'ag');
    const { config } = await writePipeline(dir, pipeline('threads-again'));
    const threadReads = () => f.sandbox.requests().filter((r) => r.method === 'GET' && /^\/threads\/\d+\/messages$/.test(r.path)).length;
    f.sandbox.clearRequests();
    const first = await runImport({ config, stateDir: join(dir, 'state-1') }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ imported: 8, replies: 4, orphans: 1, repliesHeld: 0, orphansHeld: 0 });
    expect(formatReportTable(first)).toContain('messages: 4 replies in their threads, all sent now; 1 whose root was not found in the channel (orphans), all sent now');
    // Both roots were read with repliesCount 0 by this run: nothing to look for in their threads.
    expect(threadReads()).toBe(0);

    f.sandbox.clearRequests();
    const second = await runImport({ config, stateDir: join(dir, 'state-2') }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 8, replies: 4, orphans: 1, pending: 0, repliesHeld: 4, orphansHeld: 1 });
    // The report says this run sent none of them.
    const said = formatReportTable(second);
    expect(said).toContain('messages: 4 replies in their threads, all already there (none sent now); 1 whose root was not found in the channel (orphans), all already there (none sent now)');
    expect(said).not.toContain('sent into');
    expect(second.totals.balanced).toBe(true);
    // This time the roots hold replies: each thread is read once, and nothing is sent again.
    expect(threadReads()).toBe(2);
    expect(f.sandbox.requests().filter((r) => r.method === 'POST' && /^\/(threads|channels)\/\d+\/messages$/.test(r.path))).toEqual([]);
    const one = sorted(await all(f.client.channels.messages((await channelNamed('agone')).id)));
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing']);
    expect(await threadBodies(one[0]!)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
  });

  it('a resumed run whose earlier attempt settled the replies says, as the uninterrupted run did, how many it sent and how many were already there', async () => {
    const dir = join(f.dir, 'held-resume');
    await writeThreaded(dir, 'hr');
    const { config } = await writePipeline(dir, pipeline('threads-held-resume'));
    await runImport({ config, stateDir: join(dir, 'state-1') }, { client: f.client });
    // The last reply of a thread deleted since: a run in another state folder finds the other four there and sends that one.
    const root = sorted(await all(f.client.channels.messages((await channelNamed('hrone')).id)))[0]!;
    const [, , third] = await all(f.client.threads.messages(replyThreadIdOf(root)!));
    await f.client.messages.delete(third!.id);
    const state = join(dir, 'state-2');
    const uninterrupted = await runImport({ config, stateDir: state }, { client: f.client });
    const figures = { read: 8, imported: 8, pending: 0, replies: 4, orphans: 1, repliesHeld: 3, orphansHeld: 1 };
    expect(uninterrupted.stages.messages).toMatchObject(figures);
    const line = 'messages: 4 replies in their threads (1 sent now, 3 already there); 1 whose root was not found in the channel (orphans), all already there (none sent now)';
    expect(formatReportTable(uninterrupted)).toContain(line);

    const journal = join(state, 'journal.ndjson');
    const cutJournal = async (drop: (e: { t: string; stage?: string }) => boolean) => {
      const kept = (await readFile(journal, 'utf8')).trim().split('\n').filter((l) => !drop(JSON.parse(l) as { t: string; stage?: string }));
      await writeFile(journal, `${kept.join('\n')}\n`);
    };
    // As a kill -9 after the messages stage was done, before the run ended: its counts come from the journal.
    await cutJournal((e) => e.t === 'run-ended');
    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject(figures);
    expect(formatReportTable(resumed)).toContain(line);
    // As a kill -9 after the last reply settled, before the stage's end was journaled: the stage runs again, sending nothing.
    await cutJournal((e) => e.t === 'run-ended' || (e.stage === 'messages' && (e.t === 'stage-input-read' || e.t === 'stage-done')));
    f.sandbox.clearRequests();
    const again = await runImport({ config, stateDir: state }, { client: f.client });
    expect(again.attempt).toBe(3);
    expect(again.stages.messages).toMatchObject(figures);
    expect(formatReportTable(again)).toContain(line);
    expect(f.sandbox.requests().filter((r) => r.method === 'POST' && /^\/(threads|channels)\/\d+\/messages$/.test(r.path))).toEqual([]);
    expect(await threadBodies(root)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
  });

  it('a send whose answer was lost is looked up, not sent twice', async () => {
    const dir = join(f.dir, 'lost');
    await writeThreaded(dir, 'lo');
    const { config } = await writePipeline(dir, pipeline('threads-lost'));
    // The platform takes the second reply, then the connection drops before the answer.
    f.sandbox.setFaults([{ method: 'POST', path: '/threads/*/messages', fault: { kind: 'drop', when: 'after-processing' }, times: 1 }]);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    f.sandbox.setFaults([]);
    expect(report.stages.messages).toMatchObject({ imported: 8, replies: 4, orphans: 1 });
    const one = sorted(await all(f.client.channels.messages((await channelNamed('loone')).id)));
    expect(await threadBodies(one[0]!)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
  });

  it('a run that died with a reply being sent resumes without doubling or losing it', async () => {
    const dir = join(f.dir, 'resume');
    await writeThreaded(dir, 'rs');
    const { config } = await writePipeline(dir, pipeline('threads-resume'));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    // Cut the journal as a kill -9 between the send and its "sent" line would have left it.
    const journal = join(state, 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    const lastSent = lines.findLastIndex((l) => l.includes('"reply-sent"'));
    const kept = lines.slice(0, lastSent).filter((l) => !l.includes('"stage-done"') || !l.includes('"messages"'));
    await writeFile(journal, `${kept.join('\n')}\n`);

    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject({ read: 8, imported: 8, replies: 4, orphans: 1, pending: 0 });
    const one = sorted(await all(f.client.channels.messages((await channelNamed('rsone')).id)));
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing']);
    expect(await threadBodies(one[0]!)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
  });

  it('a resumed run reads no thread whose replies were all sent; a failing read of the one it needs stops it with 69 and its report', async () => {
    const dir = join(f.dir, 'resume-502');
    await writeThreaded(dir, 'r5');
    const { path, config } = await writePipeline(dir, pipeline('threads-resume-502'));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    // As a kill -9 after m8 left but before its answer was journaled: every other reply is journaled as sent.
    const journal = join(state, 'journal.ndjson');
    const cut = (await readFile(journal, 'utf8')).trim().split('\n').filter((line) => {
      const e = JSON.parse(line) as { t: string; stage?: string; key?: string };
      return !(e.t === 'run-ended' || (e.t === 'stage-done' && e.stage === 'messages') || (e.t === 'reply-sent' && e.key === 'm8'));
    });
    await writeFile(journal, `${cut.join('\n')}\n`);

    const one = sorted(await all(f.client.channels.messages((await channelNamed('r5one')).id)))[0]!;
    const two = sorted(await all(f.client.channels.messages((await channelNamed('r5two')).id)))[0]!;
    const [threadOne, threadTwo] = [replyThreadIdOf(one)!, replyThreadIdOf(two)!];
    // Every thread read answers 502. The one the run needs (m8's, to look for it) answers each attempt
    // 2 s late, longer in all than the retries' backoff (at most 7.5 s), so an unneeded read of thread
    // two, if one is made, has failed before it.
    f.sandbox.setFaults([
      { method: 'GET', path: `/threads/${String(threadOne)}/messages`, fault: { kind: 'delay', ms: 2_000 } },
      { method: 'GET', path: '/threads/*/messages', fault: { kind: 'status', status: 502 } },
    ]);
    f.sandbox.clearRequests();
    const resumed = await runCli(['import', path, '--state', state], f.env).finally(() => f.sandbox.setFaults([]));
    expect({ code: resumed.code, stderr: resumed.stderr }).toMatchObject({ code: ExitCode.UNAVAILABLE });
    expect(resumed.stdout).toMatch(/^run \S+ \(threads-resume-502, attempt 2\): failed$/m);
    expect(resumed.stdout).toMatch(/stopped by API_SERVER: list thread \d+ messages .*502/);
    const report = JSON.parse(await readFile(join(state, 'runs', resumed.stdout.match(/^run (\S+)/m)![1]!, 'report.json'), 'utf8')) as RunReport;
    expect(report).toMatchObject({ status: 'failed', error: { code: 'API_SERVER', exitCode: ExitCode.UNAVAILABLE } });
    const reads = (thread: unknown) => f.sandbox.requests().filter((r) => r.method === 'GET' && r.path === `/threads/${String(thread)}/messages`).length;
    expect({ one: reads(threadOne) > 0, two: reads(threadTwo) }).toEqual({ one: true, two: 0 });

    // Nothing was harmed: the next resume sends m8 once.
    const again = await runCli(['import', path, '--state', state, '--no-verify'], f.env);
    expect({ code: again.code, stderr: again.stderr }).toMatchObject({ code: ExitCode.OK });
    expect(await threadBodies(one)).toEqual(['reply 1 to one', 'reply 2 to one', 'reply 3 to one']);
  }, 90_000);
});

describe('replies patched in their thread (mode: upsert)', () => {
  it('a reply patched just before a kill is counted updated once by the resumed run, and listed as applied', async () => {
    const dir = join(f.dir, 'patch-kill');
    await writeThreaded(dir, 'pk');
    const { config } = await writePipeline(dir, pipeline('threads-patch-kill', ', mode: upsert'));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    await editText(dir, 'reply 2 to one', 'reply 2 to one (edited)');
    // The PATCH reached the platform; the run dies before its journal line.
    await expect(runImport({ config, stateDir: state }, killedAfter('messages', 'update'))).rejects.toThrow('killed');

    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject({ read: 8, imported: 8, updated: 1, skipped: 0, rejected: 0, replies: 4, repliesHeld: 4, orphans: 1, pending: 0 });
    expectBalanced(resumed.stages.messages!);
    expect(resumed.verification?.status).toBe('exact');
    const listed = await changedLines(resumed.runDir);
    expect(listed.map((l) => [l.sourceKey, l.applied])).toEqual([['m6', true]]);
    expect(listed[0]!.differences).toEqual([expect.objectContaining({ field: 'body', platform: 'reply 2 to one', source: 'reply 2 to one (edited)' })]);

    // Resumed again after the replies were settled: the journal still says updated, and the line is listed again.
    const journal = join(state, 'journal.ndjson');
    const cut = (await readFile(journal, 'utf8')).trim().split('\n').filter((line) => {
      const e = JSON.parse(line) as { t: string; stage?: string };
      return !(e.t === 'run-ended' || (e.stage === 'messages' && (e.t === 'stage-done' || e.t === 'stage-input-read')));
    });
    await writeFile(journal, `${cut.join('\n')}\n`);
    const again = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(again.attempt).toBe(3);
    expect(again.stages.messages).toMatchObject({ read: 8, imported: 8, updated: 1, replies: 4, repliesHeld: 4, orphans: 1, pending: 0 });
    expect((await changedLines(again.runDir)).map((l) => [l.sourceKey, l.applied])).toEqual([['m6', true]]);
  });
});

describe('orphans on later runs', () => {
  const appendMessages = async (dir: string, lines: string[]) => writeFile(join(dir, 'messages.csv'), `${await readFile(join(dir, 'messages.csv'), 'utf8')}${lines.join('\n')}\n`);
  const bodiesIn = async (name: string) => sorted(await all(f.client.channels.messages((await channelNamed(name)).id)));
  /** Run 1 of the threaded source (m7 an orphan), `meanwhile` done to m7's channel copy, then run 2 with m7's root m99 added. */
  const lateRootAfter = async (prefix: string, meanwhile: (orphan: Message) => Promise<unknown>) => {
    const dir = join(f.dir, `late-root-${prefix}`);
    await writeThreaded(dir, prefix);
    const { config } = await writePipeline(dir, pipeline(`threads-late-root-${prefix}`));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    await meanwhile((await bodiesIn(`${prefix}one`)).find((m) => m.body === 'reply to nothing')!);
    await appendMessages(dir, [`m99,c1,${prefix}a,late root,`]);
    return runImport({ config, stateDir: state }, { client: f.client });
  };

  it('an orphan whose root appears on a later run is moved into its thread: in the thread once, gone from the channel', async () => {
    const dir = join(f.dir, 'late-root');
    await writeThreaded(dir, 'lr');
    const { config } = await writePipeline(dir, pipeline('threads-late-root'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ replies: 4, orphans: 1 });

    // The export re-made with the record m7 replies to.
    await appendMessages(dir, ['m99,c1,lra,late root,']);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 9, imported: 9, replies: 5, moved: 1, pending: 0 });
    expect(second.stages.messages!.orphans).toBeUndefined();
    expect(second.verification?.status).toBe('exact');
    const one = await bodiesIn('lrone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'late root']);
    expect(await threadBodies(one[2]!)).toEqual(['reply to nothing']);

    // A third run finds everything in place: nothing sent, nothing deleted.
    f.sandbox.clearRequests();
    const third = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(third.stages.messages).toMatchObject({ replies: 5, pending: 0 });
    expect(third.stages.messages!.moved).toBeUndefined();
    expect(f.sandbox.requests().filter((r) => r.method === 'DELETE' || (r.method === 'POST' && /^\/(threads|channels)\/\d+\/messages$/.test(r.path)))).toEqual([]);
  });

  it('a channel message with the reply\'s key edited on the platform is that reply\'s copy with other content: insert leaves it there, changed, and sends nothing', async () => {
    // Only this pipeline's channels are searched, so what sits there under m7's key, by m7's author, is m7's
    // record: compared with its source as any held message (an upsert run patches and moves it).
    const second = await lateRootAfter('oc', (orphan) => f.client.records.updateMessage(orphan.id, { body: 'edited since' }));
    expect(second.stages.messages).toMatchObject({ read: 9, imported: 8, skipped: 1, changed: 1, replies: 4, pending: 0 });
    expect(second.stages.messages!.moved).toBeUndefined();
    const one = await bodiesIn('ocone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'edited since', 'late root']);
    expect(await threadBodies(one[3]!)).toEqual([]);
  });

  it('a channel message with the reply\'s key by another author is not taken for its copy: it stays, and the reply goes into its thread', async () => {
    const second = await lateRootAfter('ob', async (orphan) => {
      await f.client.messages.delete(orphan.id);
      const channel = await channelNamed('obone');
      await f.client.channels.sendMessage(channel.id, { type: orphan.type, body: orphan.body!, properties: orphan.properties as Record<string, unknown>, user: { username: 'oba' } });
    });
    expect(second.stages.messages).toMatchObject({ replies: 5, pending: 0 });
    expect(second.stages.messages!.moved).toBeUndefined();
    const one = await bodiesIn('obone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing', 'late root']);
    expect(await threadBodies(one[3]!)).toEqual(['reply to nothing']);
  });

  it('a chain of replies whose missing root appears on a later run moves whole into that root\'s thread', async () => {
    const dir = join(f.dir, 'late-root-chain');
    await writeThreaded(dir, 'op');
    // m9 replies to the orphan m7: both go into the channel, the chain's root m99 being missing.
    await appendMessages(dir, ['m9,c1,opa,reply to the orphan,m7']);
    const { config } = await writePipeline(dir, pipeline('threads-late-root-chain'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ replies: 4, orphans: 2 });
    expect(first.verification?.status).toBe('exact');
    await appendMessages(dir, ['m99,c1,opa,late root,']);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ replies: 6, moved: 2, pending: 0 });
    expect(second.verification?.status).toBe('exact');
    const one = await bodiesIn('opone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'late root']);
    expect(await threadBodies(one[2]!)).toEqual(['reply to nothing', 'reply to the orphan']);
  });

  it('an orphan someone replied to by hand is not moved (the delete would take that reply along)', async () => {
    const second = await lateRootAfter('hp', (orphan) => f.client.threads.send(replyThreadIdOf(orphan)!, { type: 'TEXT', body: 'by hand', user: { username: 'hpa' } }));
    expect(second.stages.messages).toMatchObject({ replies: 4, orphans: 1, pending: 0 });
    expect(second.stages.messages!.moved).toBeUndefined();
    const one = await bodiesIn('hpone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing', 'late root']);
    expect(await threadBodies(one[2]!)).toEqual(['by hand']);
  });

  it('a DIRECT channel made by hand is never searched for copies: another pipeline\'s message of the same key, body and author stays', async () => {
    const dir = join(f.dir, 'shared-dm');
    await f.client.records.createUser({ name: 'sd-a', displayName: 'A', isGuest: false });
    await f.client.records.createUser({ name: 'sd-b', displayName: 'B', isGuest: false });
    await f.client.records.createChannel({ type: 'DIRECT', members: [{ username: 'sd-a' }, { username: 'sd-b' }] });
    await writeInput(dir, 'channels.csv', 'key,members\nd1,sd-a|sd-b\n');
    await writeInput(dir, 'a.csv', 'id,channel,author,text,parent\nm1,d1,sd-a,hello from A,\nm7,d1,sd-b,ok,\n');
    await writeInput(dir, 'b.csv', 'id,channel,author,text,parent\nr1,d1,sd-a,question from B,\nm7,d1,sd-b,ok,r1\n');
    const dmPipeline = (name: string, messages: string) => `name: ${name}
stages:
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: DIRECT }, members: { field: members, split: "|" } } }
  messages: { source: { path: ${messages} }, key: id, channel: channel, thread: parent, mapping: { type: { const: TEXT }, user: author, body: text } }
`;
    await runImport({ config: (await writePipeline(dir, dmPipeline('shared-dm-a', 'a.csv'))).config, stateDir: join(dir, 'state-a') }, { client: f.client });
    f.sandbox.clearRequests();
    const b = await runImport({ config: (await writePipeline(dir, dmPipeline('shared-dm-b', 'b.csv'))).config, stateDir: join(dir, 'state-b') }, { client: f.client });
    expect(b.stages.messages!.moved).toBeUndefined();
    expect(f.sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('a run killed between the send into the thread and the delete of the channel copy: the resumed run deletes the copy', async () => {
    const dir = join(f.dir, 'late-root-kill');
    await writeThreaded(dir, 'lk');
    const { config } = await writePipeline(dir, pipeline('threads-late-root-kill'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state }, { client: f.client });
    const channel = await channelNamed('lkone');
    const orphan = (await bodiesIn('lkone')).find((m) => m.body === 'reply to nothing')!;
    expect(first.stages.messages).toMatchObject({ orphans: 1 });

    await appendMessages(dir, ['m99,c1,lka,late root,']);
    await runImport({ config, stateDir: state }, { client: f.client });
    // As a kill -9 right after the reply went into its thread left it: the copy still in the channel (sent
    // again as the replies pass sends orphans), the move not journaled, the run not ended.
    await f.client.channels.sendMessage(channel.id, { type: orphan.type, body: orphan.body!, properties: orphan.properties as Record<string, unknown>, user: { username: 'lkb' } });
    const journal = join(state, 'journal.ndjson');
    const cut = (await readFile(journal, 'utf8')).trim().split('\n').filter((line) => {
      const e = JSON.parse(line) as { t: string; stage?: string };
      return !(e.t === 'run-ended' || e.t === 'reply-moved' || (e.t === 'stage-done' && e.stage === 'messages'));
    });
    await writeFile(journal, `${cut.join('\n')}\n`);
    expect((await bodiesIn('lkone')).map((m) => m.body)).toEqual(['root one', 'plain', 'late root', 'reply to nothing']);

    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject({ read: 9, imported: 9, replies: 5, moved: 1, pending: 0 });
    expect(resumed.verification?.status).toBe('exact');
    const one = await bodiesIn('lkone');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'late root']);
    expect(await threadBodies(one[2]!)).toEqual(['reply to nothing']);
  });

  /** Run 1 of the threaded source (m7 an orphan), then m7's text edited in the source and its root m99 added. */
  const editedLateRoot = async (prefix: string, mode: 'insert' | 'upsert') => {
    const dir = join(f.dir, `late-root-edited-${prefix}`);
    await writeThreaded(dir, prefix);
    const { config } = await writePipeline(dir, pipeline(`threads-late-root-edited-${prefix}`, `, mode: ${mode}`));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    await editText(dir, 'reply to nothing', 'reply to nothing (edited)');
    await appendMessages(dir, [`m99,c1,${prefix}a,late root,`]);
    return { config, state };
  };
  const upsertMoved = { read: 9, imported: 9, skipped: 0, rejected: 0, updated: 1, replies: 5, repliesHeld: 4, moved: 1, pending: 0 };
  /** The reply once, in its thread, with the source's content; listed once as an applied change of its old copy. */
  const expectMovedWithEdit = async (prefix: string, runDir: string) => {
    const one = await bodiesIn(`${prefix}one`);
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'late root']);
    expect(await threadBodies(one[2]!)).toEqual(['reply to nothing (edited)']);
    const listed = await changedLines(runDir);
    expect(listed.map((l) => [l.sourceKey, l.applied])).toEqual([['m7', true]]);
    expect(listed[0]!.differences).toEqual([expect.objectContaining({ field: 'body', platform: 'reply to nothing', source: 'reply to nothing (edited)' })]);
  };

  it('upsert: an orphan edited in the source whose root appears later is moved with the source\'s content, counted updated and moved once', async () => {
    const { config, state } = await editedLateRoot('em', 'upsert');
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject(upsertMoved);
    expect(second.stages.messages!.orphans).toBeUndefined();
    expectBalanced(second.stages.messages!);
    expect(second.verification?.status).toBe('exact');
    await expectMovedWithEdit('em', second.runDir);
  });

  it('upsert, killed right after the edited orphan went into its thread: the resumed run counts and lists what the uninterrupted one does', async () => {
    const { config, state } = await editedLateRoot('ek', 'upsert');
    await expect(runImport({ config, stateDir: state }, killedAfter('threads', 'send'))).rejects.toThrow('killed');
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject(upsertMoved);
    expectBalanced(resumed.stages.messages!);
    expect(resumed.verification?.status).toBe('exact');
    await expectMovedWithEdit('ek', resumed.runDir);
  });

  it('killed right after the channel copy\'s delete, before the move was journaled: the resumed run counts the reply moved once', async () => {
    // insert, the copy unchanged: a reply moved.
    const dir = join(f.dir, 'late-root-kill-delete');
    await writeThreaded(dir, 'kd');
    const { config } = await writePipeline(dir, pipeline('threads-late-root-kill-delete'));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    await appendMessages(dir, ['m99,c1,kda,late root,']);
    await expect(runImport({ config, stateDir: state }, killedAfter('messages', 'delete'))).rejects.toThrow('killed');
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.messages).toMatchObject({ read: 9, imported: 9, replies: 5, moved: 1, pending: 0 });
    expect(resumed.verification?.status).toBe('exact');

    // upsert, the copy edited in the source: updated and moved once, listed once.
    const edited = await editedLateRoot('ed', 'upsert');
    await expect(runImport({ config: edited.config, stateDir: edited.state }, killedAfter('messages', 'delete'))).rejects.toThrow('killed');
    const again = await runImport({ config: edited.config, stateDir: edited.state, verify: {} }, { client: f.client });
    expect(again.attempt).toBe(2);
    expect(again.stages.messages).toMatchObject(upsertMoved);
    expectBalanced(again.stages.messages!);
    expect(again.verification?.status).toBe('exact');
    await expectMovedWithEdit('ed', again.runDir);

    // A journal an older version wrote (no reply-moving line) still resumes: the reply counted, not moved.
    const older = await editedLateRoot('eo', 'upsert');
    await expect(runImport({ config: older.config, stateDir: older.state }, killedAfter('messages', 'delete'))).rejects.toThrow('killed');
    const journal = join(older.state, 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    await writeFile(journal, `${lines.filter((line) => (JSON.parse(line) as { t: string }).t !== 'reply-moving').join('\n')}\n`);
    const resumedOlder = await runImport({ config: older.config, stateDir: older.state, verify: {} }, { client: f.client });
    const { moved: _notCounted, ...counted } = upsertMoved;
    expect(resumedOlder.stages.messages).toMatchObject(counted);
    expect(resumedOlder.stages.messages!.moved).toBeUndefined();
    expect(resumedOlder.verification?.status).toBe('exact');
    await expectMovedWithEdit('eo', resumedOlder.runDir);
  });

  it('insert: an orphan edited in the source whose root appears later is listed changed, not applied, and left once, in its channel', async () => {
    const { config, state } = await editedLateRoot('ei', 'insert');
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 9, imported: 8, skipped: 1, changed: 1, replies: 4, repliesHeld: 4, pending: 0 });
    expect(second.stages.messages!.moved).toBeUndefined();
    expectBalanced(second.stages.messages!);
    const one = await bodiesIn('eione');
    expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing', 'late root']);
    expect(await threadBodies(one[3]!)).toEqual([]);
    const listed = await changedLines(second.runDir);
    expect(listed.map((l) => [l.sourceKey, l.applied])).toEqual([['m7', false]]);
    // Verification names the change not applied: the reply missing from its thread, its old copy extra in the channel.
    expect(second.verification).toMatchObject({ status: 'differences', counts: { missing: 1, extra: 1, misplaced: 0, 'out-of-order': 0, changed: 0 } });
  });

  it('an edited reply already in its thread, its old copy left in the channel (by a version before copies were compared): the copy is deleted, insert or upsert', async () => {
    for (const mode of ['insert', 'upsert'] as const) {
      const prefix = `lt${mode[0]!}`;
      const { config, state } = await editedLateRoot(prefix, mode);
      // What that version left: the root, and the edited reply sent into its thread, the old copy kept.
      const channel = await channelNamed(`${prefix}one`);
      const copy = (await bodiesIn(`${prefix}one`)).find((m) => m.body === 'reply to nothing')!;
      const root = await f.client.channels.sendMessage(channel.id, { type: 'TEXT', body: 'late root', user: { username: `${prefix}a` }, properties: { [CHANNEL_KEY_PROPERTY]: 'm99', [PIPELINE_PROPERTY]: `threads-late-root-edited-${prefix}` } });
      await f.client.threads.send(replyThreadIdOf(root)!, { type: 'TEXT', body: 'reply to nothing (edited)', user: { username: `${prefix}b` }, properties: copy.properties as Record<string, unknown> });
      f.sandbox.clearRequests();
      const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
      expect({ mode, counts: second.stages.messages }).toMatchObject({ mode, counts: { read: 9, imported: 9, skipped: 0, changed: 0, updated: 0, replies: 5, repliesHeld: 5, moved: 1, pending: 0 } });
      expectBalanced(second.stages.messages!);
      expect(second.verification?.status).toBe('exact');
      expect(f.sandbox.requests().filter((r) => r.method === 'PATCH')).toEqual([]);
      const one = await bodiesIn(`${prefix}one`);
      expect(one.map((m) => m.body)).toEqual(['root one', 'plain', 'late root']);
      expect(await threadBodies(one[2]!)).toEqual(['reply to nothing (edited)']);
    }
  });

  it('an orphan sent by an earlier run, before messages a later export appends: verification is exact', async () => {
    const dir = join(f.dir, 'orphan-append');
    await writeThreaded(dir, 'oa');
    const { config } = await writePipeline(dir, pipeline('threads-orphan-append'));
    const state = join(dir, 'state');
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    await appendMessages(dir, ['m9,c1,oaa,appended later,']);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 9, replies: 4, orphans: 1 });
    // The platform holds what chatport sent, in the only order it could: the orphan before the new message.
    expect((await bodiesIn('oaone')).map((m) => m.body)).toEqual(['root one', 'plain', 'reply to nothing', 'appended later']);
    expect(second.verification).toMatchObject({ status: 'exact' });

    // An orphan deleted on the platform is still missing.
    const orphan = (await bodiesIn('oaone')).find((m) => m.body === 'reply to nothing')!;
    await f.client.messages.delete(orphan.id);
    const { runVerify } = await import('../../src/pipeline/verify/run-verify.js');
    const after = await runVerify({ config }, { client: f.client });
    expect(after.differences).toEqual([expect.objectContaining({ kind: 'missing', stage: 'messages', channelKey: 'c1' })]);
  });
});

describe('replies to replies', () => {
  const header = 'id,channel,author,text,parent';
  /** A chain of n replies: the first names `root`, each other one the reply before it. */
  const chain = (prefix: string, n: number, root: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i + 1}`, parent: i === 0 ? root : `${prefix}${i}` }));
  const sends = () => f.sandbox.requests().filter((r) => r.method === 'DELETE' || (r.method === 'POST' && /^\/(threads|channels)\/\d+\/messages$/.test(r.path)));

  it.each([2, 3, 5])('a chain of %i under a present root goes into the root\'s thread, one under a missing root into the channel: exact on run 1, run 2 sends nothing', async (n) => {
    const dir = join(f.dir, `chain-${n}`);
    const u = `ch${n}`;
    await writeInput(dir, 'users.csv', `id,username,display\n1,${u}a,A\n2,${u}b,B\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc1,${u}one,${u}a|${u}b\n`);
    const present = chain('p', n, 'r');
    const missing = chain('q', n, 'zz');
    // The two chains interleaved, with plain messages between.
    const lines = [`r,c1,${u}a,root,`];
    for (let i = 0; i < n; i++) lines.push(`${present[i]!.id},c1,${u}b,${present[i]!.id},${present[i]!.parent}`, `x${i},c1,${u}a,plain ${i},`, `${missing[i]!.id},c1,${u}b,${missing[i]!.id},${missing[i]!.parent}`);
    await writeInput(dir, 'messages.csv', [header, ...lines, ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline(`chain-${n}`));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ read: 1 + 3 * n, replies: n, orphans: n, pending: 0 });
    expect(first.verification?.status).toBe('exact');
    const channel = sorted(await all(f.client.channels.messages((await channelNamed(`${u}one`)).id)));
    expect(channel.map((m) => m.body)).toEqual(['root', ...present.map((_, i) => `plain ${i}`), ...missing.map((q) => q.id)]);
    expect(await threadBodies(channel[0]!)).toEqual(present.map((p) => p.id));
    expect(channel.slice(1).map((m) => m.repliesCount)).toEqual(channel.slice(1).map(() => 0));

    f.sandbox.clearRequests();
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ replies: n, orphans: n, repliesHeld: n, orphansHeld: n, pending: 0 });
    expect(second.verification?.status).toBe('exact');
    expect(sends()).toEqual([]);
  });

  it('a reply whose parent reply the platform refused goes into the channel, with the rest of its chain: verification agrees', async () => {
    const dir = join(f.dir, 'chain-refused');
    await writeInput(dir, 'users.csv', 'id,username,display\n1,cra,A\n2,crb,B\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,crone,cra|crb\n');
    await writeInput(dir, 'messages.csv', [header, 'r,c1,cra,root,', 'p1,c1,crb,first,r', 'p2,c1,cra,second,p1', 'p3,c1,crb,third,p2', ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('chain-refused'));
    f.sandbox.setFaults([{ method: 'POST', path: '/threads/*/messages', fault: { kind: 'status', status: 400 }, times: 1 }]);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }).finally(() => f.sandbox.setFaults([]));
    expect(report.stages.messages).toMatchObject({ read: 4, refused: 1, orphans: 2, pending: 0 });
    expect(report.verification?.status).toBe('exact');
    expect(sorted(await all(f.client.channels.messages((await channelNamed('crone')).id))).map((m) => m.body)).toEqual(['root', 'second', 'third']);
  });

  it('a seeded random source with a fifth replies, chains among them, verifies exact on run 1; run 2 sends nothing', async () => {
    const dir = join(f.dir, 'chain-random');
    await writeInput(dir, 'users.csv', 'id,username,display\n1,rra,A\n2,rrb,B\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,rrone,rra|rrb\nc2,rrtwo,rra|rrb\nc3,rrthree,rra|rrb\n');
    let seed = 21;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const count = 600;
    const channelOf = Array.from({ length: count }, () => pick(['c1', 'c2', 'c3']));
    const lines: string[] = [];
    const before = (i: number, replies: boolean) => Array.from({ length: i }, (_, j) => j).filter((j) => channelOf[j] === channelOf[i] && (lines[j]!.endsWith(',') !== replies));
    for (let i = 0; i < count; i++) {
      const row = `m${i},${channelOf[i]},${pick(['rra', 'rrb'])},message ${i},`;
      if (random() >= 0.2) {
        lines.push(row);
        continue;
      }
      const roll = random();
      const roots = before(i, false);
      const replies = before(i, true);
      // Mostly replies to replies, so chains grow long; some to roots, a missing key, a later message, another channel's.
      const parent = roll < 0.5 && replies.length > 0 ? `m${pick(replies)}` : roll < 0.7 && roots.length > 0 ? `m${pick(roots)}` : roll < 0.8 ? `gone${i}` : roll < 0.9 ? `m${Math.min(count - 1, i + 1 + Math.floor(random() * 20))}` : `m${Math.floor(random() * count)}`;
      lines.push(`${row}${parent}`);
    }
    await writeInput(dir, 'messages.csv', [header, ...lines, ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('chain-random'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    const replies = lines.filter((l) => !l.endsWith(',')).length;
    expect(replies).toBeGreaterThan(100);
    expect(first.stages.messages).toMatchObject({ read: count, imported: count, pending: 0 });
    expect(first.stages.messages!.replies! + first.stages.messages!.orphans!).toBe(replies);
    expect(first.verification).toMatchObject({ status: 'exact' });
    f.sandbox.clearRequests();
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.verification).toMatchObject({ status: 'exact' });
    expect(sends()).toEqual([]);
  }, 60_000);
});
