import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOf } from '../../src/pipeline/import/partial-report.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { InterruptedError } from '../../src/shared/errors.js';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { all, generateCsvs, generatedPipeline, setUpGeneratedRun, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

function setUp(name: string, counts = { users: 4, channels: 2, messages: 120 }) {
  return setUpGeneratedRun(f, name, counts);
}

/** The idempotency key chatport gives a message, read from a dry run's chunk files. */
async function messageKey(config: PipelineConfig, dir: string, body: string): Promise<string> {
  const report = await runImport({ config, stateDir: join(dir, 'dry'), mode: 'dry-run' });
  const chunksDir = join(report.runDir, 'chunks', 'messages');
  for (let seq = 0; seq < report.stages.messages!.chunks; seq++) {
    const items = JSON.parse(await readFile(join(chunksDir, `${String(seq).padStart(6, '0')}.json`), 'utf8')) as Array<{ body: string; idempotencyKey: string }>;
    const found = items.find((m) => m.body === body);
    if (found) return found.idempotencyKey;
  }
  throw new Error(`no message "${body}" in the dry run's chunks`);
}

async function bodiesHeld(prefix: string): Promise<string[]> {
  const channels = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.name.startsWith(prefix));
  const bodies: string[] = [];
  for (const c of channels) for (const m of await all(f.client.channels.messages(c.id, { pageSize: 100 }))) bodies.push(m.body ?? '');
  return bodies.sort();
}

const expectedBodies = (n: number) => Array.from({ length: n }, (_, i) => `message number ${i}`).sort();

async function failedJobs(): Promise<number> {
  return (await all(f.client.jobs.list({ pageSize: 100 }))).filter((j) => j.state === 'FAILED').length;
}

async function refusedLines(rejectsFile: string | undefined): Promise<unknown[]> {
  if (!rejectsFile) return [];
  const text = await readFile(rejectsFile, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string }).filter((r) => r.kind === 'refused');
}

describe('refusal only when conclusive, over HTTP', () => {
  it('every job FAILS for a while: the run stops with exit 75, nothing refused; the same command later imports everything exactly once', async () => {
    const { config, state } = await setUp('outage');
    f.sandbox.setJobOptions({ failProbability: 1 });
    const error = await runImport({ config, stateDir: state }, { client: f.client }).then(() => undefined, (e: unknown) => e);
    f.sandbox.setJobOptions({});
    expect(error).toMatchObject({ code: 'PLATFORM_FAILING_JOBS', transient: true });
    expect(exitCodeFor(error)).toBe(75);
    const failed = reportOf(error)!;
    expect(failed.status).toBe('failed');
    expect(failed.totals.refused).toBe(0);
    expect(await refusedLines(failed.rejectsFile)).toEqual([]);
    expect(await failedJobs()).toBeLessThanOrEqual(20);

    const report = await runImport({ config, stateDir: state }, { client: f.client });
    expect(report.runId).toBe(failed.runId);
    expect(report.status).toBe('succeeded');
    expect(report.totals).toMatchObject({ imported: 4 + 2 + 120, rejected: 0, refused: 0 });
    expect((await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.name.startsWith('outage-')).length).toBe(4);
    expect(await bodiesHeld('outage-')).toEqual(expectedBodies(120));
  });

  it('one item only the platform refuses is refused, with the others imported', async () => {
    const { config, dir, state } = await setUp('one-bad');
    f.sandbox.setJobOptions({ refuseKeys: [await messageKey(config, dir, 'message number 33')] });
    const report = await runImport({ config, stateDir: state, verify: {} }, { client: f.client }).finally(() => f.sandbox.setJobOptions({}));
    expect(report.status).toBe('completed-with-rejects');
    expect(report.stages.messages).toMatchObject({ read: 120, imported: 119, rejected: 1, refused: 1 });
    const refused = (await refusedLines(report.rejectsFile)) as Array<{ stage: string; line: number }>;
    expect(refused.map((r) => `${r.stage}:${r.line}`)).toEqual(['messages:35']);
    expect(await bodiesHeld('one-bad-')).toEqual(expectedBodies(120).filter((b) => b !== 'message number 33'));
    // The refused item is listed as sent, and verification still knows it for the source record it was.
    expect(report.verification?.status).toBe('exact');
  });

  it('a resumed run tries a refused item once more, and imports it once the platform takes it', async () => {
    const { config, dir, state } = await setUp('resume-refused');
    f.sandbox.setJobOptions({ refuseKeys: [await messageKey(config, dir, 'message number 5')] });
    const stop = new AbortController();
    const error = await runImport({ config, stateDir: state }, {
      client: f.client,
      signal: stop.signal,
      // Interrupted as soon as the refusal is settled, so the run is left unfinished.
      onProgress: (stage, counts) => {
        if (stage === 'messages' && counts.refused > 0 && !stop.signal.aborted) stop.abort(new InterruptedError('SIGTERM'));
      },
    }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    const interrupted = reportOf(error)!;
    expect(interrupted.stages.messages!.refused).toBe(1);

    f.sandbox.setJobOptions({});
    const report = await runImport({ config, stateDir: state }, { client: f.client });
    expect(report.runId).toBe(interrupted.runId);
    expect(report.status).toBe('succeeded');
    expect(report.stages.messages).toMatchObject({ read: 120, imported: 120, rejected: 0, refused: 0 });
    expect(await refusedLines(report.rejectsFile)).toEqual([]);
    expect(await bodiesHeld('resume-refused-')).toEqual(expectedBodies(120));
  });
});

describe('records validate or one look at the platform can tell are bad are rejected before upload', () => {
  it('unknown authors and a username taken by a user chatport did not create: rejected with field and reason, no FAILED job, also on a rerun', async () => {
    const name = 'prechecked';
    const dir = join(f.dir, name);
    const csv = generateCsvs({ users: 3, channels: 2, messages: 60 }, `${name}-`);
    // Ten messages whose authors no user answers to, and a user whose name someone took through the API.
    const strays = Array.from({ length: 10 }, (_, i) => `s${i},c${i % 2},${name}-ghost${i},stray message ${i}`).join('\n');
    await writeInput(dir, 'users.csv', `${csv.users}u9,${name}-taken,Taken\n`);
    await writeInput(dir, 'channels.csv', csv.channels);
    await writeInput(dir, 'messages.csv', `${csv.messages}${strays}\n`);
    await f.client.imports.upload('users', { bytes: Buffer.from(JSON.stringify([{ name: `${name}-taken`, displayName: 'Someone else', isGuest: false, properties: {}, idempotencyKey: 'someone-else' }])) })
      .then((job) => f.client.jobs.wait(job.id, { initialIntervalMs: 20 }));
    const { config } = await writePipeline(dir, generatedPipeline(name, 'chunkRecords: 20\n  concurrency: 2'));
    const failedBefore = await failedJobs();

    for (const run of [1, 2]) {
      const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
      expect(report.status).toBe('completed-with-rejects');
      expect(report.stages.users).toMatchObject({ read: 4, imported: 3, rejected: 1, refused: 0 });
      expect(report.stages.messages).toMatchObject({ read: 70, imported: 60, rejected: 10, refused: 0 });
      expect(report.stages.messages!.jobs.failed + report.stages.users!.jobs.failed).toBe(0);
      const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; kind: string; reasons: Array<{ field: string; message: string }> });
      expect(rejects).toHaveLength(11);
      expect(rejects.every((r) => r.kind === 'invalid')).toBe(true);
      expect(rejects[0]).toMatchObject({ stage: 'users', reasons: [{ field: 'name', message: expect.stringContaining(`'${name}-taken' is already taken on the platform`) as unknown }] });
      for (const r of rejects.slice(1)) expect(r).toMatchObject({ stage: 'messages', reasons: [{ field: 'user', message: expect.stringMatching(/no user 'prechecked-ghost\d' on the platform/) as unknown }] });
      expect(await failedJobs(), `run ${run}`).toBe(failedBefore);
    }
  });

  it("a message by a source user whose name another pipeline's user holds is rejected, never given to that user; a resumed run keeps the rejects of the stages done before", async () => {
    const name = 'notours';
    const dir = join(f.dir, name);
    const stateDir = join(dir, 'state');
    const user = (i: number) => `${name}-user${i}`;
    // user1's name is held on the platform by a user this pipeline did not create.
    await f.client.imports.upload('users', { bytes: Buffer.from(JSON.stringify([{ name: user(1), displayName: 'Someone else', isGuest: false, properties: {}, idempotencyKey: `${name}-someone-else` }])) })
      .then((job) => f.client.jobs.wait(job.id, { initialIntervalMs: 20 }));
    await writeInput(dir, 'users.csv', `id,username,display\nu0,${user(0)},Ana\nu1,${user(1)},Bo\nu2,${user(2)},Cy\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${name}-chan,${user(0)}|${user(2)}\n`);
    await writeInput(dir, 'messages.csv', `id,channel,author,text\n${Array.from({ length: 9 }, (_, i) => `m${i},c0,${user(i % 3)},message ${i}`).join('\n')}\n`);
    const { config } = await writePipeline(dir, generatedPipeline(name, 'chunkRecords: 20\n  concurrency: 2'));

    // The first run stops once the channels stage is done: users and channels are done, their rejects written.
    const stop = new AbortController();
    const onProgress = (stage: string, counts: { imported: number }) => void (stage === 'channels' && counts.imported === 1 && !stop.signal.aborted && stop.abort(new InterruptedError('SIGTERM')));
    const first = runImport({ config, stateDir }, { client: f.client, signal: stop.signal, onProgress });
    await expect(first).rejects.toThrow();
    const report = await runImport({ config, stateDir }, { client: f.client });
    expect(report.attempt).toBe(2);
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 9, imported: 6, rejected: 3 });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; record: { author?: string; username?: string }; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.stage, r.record.username ?? r.record.author])).toEqual([['users', user(1)], ['messages', user(1)], ['messages', user(1)], ['messages', user(1)]]);
    expect(rejects[1]!.reasons[0]).toMatchObject({ field: 'user', message: expect.stringContaining(`the platform's user '${user(1)}' was not created by pipeline ${name}`) });
    // The other user holds no message of this pipeline's channel.
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${name}-chan`)!;
    const authors = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.user?.name);
    expect(authors.sort()).toEqual([user(0), user(0), user(0), user(2), user(2), user(2)]);
  });
});
