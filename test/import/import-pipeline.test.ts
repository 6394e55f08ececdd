import { compareInt64 } from '../../src/shared/int64.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { formatReportTable, type RunReport } from '../../src/pipeline/report.js';
import { all, generateCsvs, generatedPipeline, interruptInMessages, startImportFixture, writeInput, writePipeline, type ImportFixture, writeCsvs } from './support.js';
import { resolvePipelineConfig } from '../../src/config/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

async function messagesByChannel(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const channel of await all(f.client.channels.list())) {
    const messages = await all(f.client.channels.messages(channel.id, { pageSize: 100 }));
    messages.sort((a, b) => compareInt64(a.id, b.id));
    out.set(channel.name, messages.map((m) => m.body ?? ''));
  }
  return out;
}

describe('import pipeline against the sandbox', () => {
  it('imports the bundled CSV example: exactly the valid rows, every bad row a reject at its line', async () => {
    const path = join(import.meta.dirname, '../../pipelines/csv-example.yaml');
    const resolved = resolvePipelineConfig(await readFile(path, 'utf8'), {
      path,
      env: { CHATPORT_API_URL: f.sandbox.url, CHATPORT_CLIENT_ID: f.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: f.sandbox.credentials.clientSecret },
    });
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.errors));
    const report = await runImport({ config: resolved.config, stateDir: join(f.dir, 'state-example') }, { client: f.client });

    expect(report.status).toBe('completed-with-rejects');
    expect(report.totals).toEqual({ read: 26, imported: 16, updated: 0, duplicates: 0, rejected: 9, refused: 0, skipped: 1, changed: 0, pending: 0, balanced: true });
    const users = await all(f.client.users.list());
    expect(users.map((u) => u.name).sort()).toEqual(['alice', 'bob', 'carol']);
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; line: number; reasons: Array<{ field: string }> });
    expect(rejects.map((r) => `${r.stage}:${r.line}`)).toEqual([
      'users:5', 'users:6', 'channels:5', 'channels:6', 'members:7', 'members:8', 'messages:6', 'messages:7', 'messages:8',
    ]);
    const report2 = JSON.parse(await readFile(join(report.runDir, 'report.json'), 'utf8')) as RunReport;
    expect(report2.totals).toEqual(report.totals);
    expect(report2.apiVersion).toBe('2.112.3');
  });

  it('keeps every channel\'s messages in source order across concurrent chunks, and a rerun adds nothing', async () => {
    const csv = generateCsvs({ users: 7, channels: 4, messages: 400 });
    const dir = join(f.dir, 'ordered');
    await writeCsvs(dir, csv);
    const { config } = await writePipeline(dir, generatedPipeline('ordered'));
    const first = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(first.status).toBe('succeeded');
    expect(first.stages.messages).toMatchObject({ read: 400, imported: 400, rejected: 0, chunks: 8 });

    const second = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(second.runId).not.toBe(first.runId);
    expect(second.stages.messages).toMatchObject({ read: 400, imported: 400 });

    const byChannel = await messagesByChannel();
    for (let c = 0; c < 4; c++) {
      const expected = Array.from({ length: 100 }, (_, k) => `message number ${k * 4 + c}`);
      expect(byChannel.get(`chan-${c}`)).toEqual(expected);
    }
  });

  it('cuts message chunks per lane: a chunk holds only channels of one lane, full, and channels stay in order', async () => {
    const csv = generateCsvs({ users: 5, channels: 6, messages: 600 }, 'lane-');
    const dir = join(f.dir, 'lanes');
    await writeCsvs(dir, csv);
    const { config } = await writePipeline(dir, generatedPipeline('lanes', 'chunkRecords: 200\n  concurrency: 2\n  lanes: 2'));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.status).toBe('succeeded');
    // 6 channels (3 even ids, 3 odd) over 2 lanes: 300 messages a lane, in chunks of 200 and 100; one chunk
    // per channel would have made 6 chunks of 100.
    expect(report.stages.messages).toMatchObject({ read: 600, imported: 600, chunks: 4 });
    const chunkDir = join(report.runDir, 'chunks', 'messages');
    const files = (await readdir(chunkDir)).sort();
    expect(files).toHaveLength(4);
    const lanesSeen = new Set<number>();
    const sizes: number[] = [];
    for (const file of files) {
      const items = JSON.parse(await readFile(join(chunkDir, file), 'utf8')) as Array<{ channelId: number }>;
      sizes.push(items.length);
      const lanes = new Set(items.map((i) => i.channelId % 2));
      expect(lanes.size).toBe(1);
      lanesSeen.add([...lanes][0]!);
      expect(new Set(items.map((i) => i.channelId)).size).toBeGreaterThan(1);
    }
    expect(lanesSeen).toEqual(new Set([0, 1]));
    expect(sizes.sort((a, b) => a - b)).toEqual([100, 100, 200, 200]);
    const byChannel = await messagesByChannel();
    for (let c = 0; c < 6; c++) {
      const expected = Array.from({ length: 100 }, (_, k) => `message number ${k * 6 + c}`);
      expect(byChannel.get(`lane-chan-${c}`)).toEqual(expected);
    }
  });

  it('paces uploads while the platform rate-limits, and still imports every message once, in order', async () => {
    const csv = generateCsvs({ users: 4, channels: 6, messages: 240 }, 'rl-');
    const dir = join(f.dir, 'rate-limited');
    await writeCsvs(dir, csv);
    const { config } = await writePipeline(dir, generatedPipeline('rate-limited', 'chunkRecords: 20\n  concurrency: 4'));
    f.sandbox.setFaults([{ method: 'POST', path: '/imports/**', fault: { kind: 'rateLimit', budget: 3, windowMs: 1000 } }]);
    let report: RunReport;
    try {
      report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    } finally {
      f.sandbox.setFaults([]);
    }
    expect(report.status).toBe('succeeded');
    expect(report.stages.messages).toMatchObject({ read: 240, imported: 240, chunks: 12 });
    const limit = report.stages.messages!.rateLimit!;
    expect(limit.answers).toBeGreaterThan(0);
    expect(formatReportTable(report)).toContain(`messages: the platform rate-limited requests ${limit.answers} times`);
    const byChannel = await messagesByChannel();
    for (let c = 0; c < 6; c++) expect(byChannel.get(`rl-chan-${c}`)).toEqual(Array.from({ length: 40 }, (_, k) => `message number ${k * 6 + c}`));
  });

  it('rejects before upload the one user whose name the platform holds already, at its source line, and imports the rest', async () => {
    const dir = join(f.dir, 'refused');
    // "taken13" already exists on the platform, created by someone else: the platform would refuse it.
    await f.client.imports.upload('users', { bytes: Buffer.from(JSON.stringify([{ name: 'taken13', displayName: 'x', isGuest: false, properties: {}, idempotencyKey: 'other-key' }])) })
      .then((job) => f.client.jobs.wait(job.id, { initialIntervalMs: 20 }));
    const rows = Array.from({ length: 40 }, (_, i) => `u${i},${i === 13 ? 'taken13' : `iso${i}`},Person ${i}`);
    await writeInput(dir, 'users.csv', `id,username,display\n${rows.join('\n')}\n`);
    const { config } = await writePipeline(dir, `name: refused
options: { chunkRecords: 40 }
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false } }
`);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.status).toBe('completed-with-rejects');
    expect(report.stages.users).toMatchObject({ read: 40, imported: 39, rejected: 1, refused: 0, jobs: { failed: 0 } });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; line: number; record: { username: string } });
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ kind: 'invalid', line: 15, record: { id: 'u13', username: 'taken13' }, reasons: [{ field: 'name' }] });
    const names = new Set((await all(f.client.users.list({ pageSize: 100 }))).map((u) => u.name));
    for (let i = 0; i < 40; i++) if (i !== 13) expect(names.has(`iso${i}`)).toBe(true);
  });
});

/** 3 users, 2 channels and 200 messages, imported until midway through the messages, then stopped as by a signal. */
async function interruptedInMessages(name: string, prefix: string) {
  const dir = join(f.dir, name);
  const csv = generateCsvs({ users: 3, channels: 2, messages: 200 }, prefix);
  await writeCsvs(dir, csv);
  const { config } = await writePipeline(dir, generatedPipeline(name, 'chunkRecords: 20\n  concurrency: 1'));
  const state = join(dir, 'state');
  expect(await interruptInMessages(f, config, state)).toBeInstanceOf(Error);
  return { dir, csv, config, state };
}

describe('an unfinished run whose input changed', () => {
  it('stops with INPUT_CHANGED (exit 65) instead of mixing two inputs, and --restart starts a new run', async () => {
    const { dir, csv, config, state } = await interruptedInMessages('changed', 'chg-');

    // The same message ids with other text: the chunks the journal knows no longer match.
    await writeInput(dir, 'messages.csv', csv.messages.replaceAll('message number', 'edited message'));
    const changed = await runImport({ config, stateDir: state }, { client: f.client }).catch((e: unknown) => e);
    expect(changed).toMatchObject({ code: 'INPUT_CHANGED' });
    expect(exitCodeFor(changed)).toBe(ExitCode.DATA_INVALID);

    const restarted = await runImport({ config, stateDir: state, restart: true }, { client: f.client });
    expect(restarted).toMatchObject({ status: 'succeeded', attempt: 1, stages: { messages: { read: 200, imported: 200 } } });
    // Nothing twice: messages imported before the change keep their first text (same idempotency keys).
    let total = 0;
    for (const channel of (await all(f.client.channels.list())).filter((c) => c.name.startsWith('chg-'))) total += (await all(f.client.channels.messages(channel.id))).length;
    expect(total).toBe(200);
  });

  it('names the pipeline file too when a resume meets other chunks: its mapping or options may be what changed', async () => {
    const { dir, state } = await interruptedInMessages('changed-options', 'cho-');

    // The input as it was; the messages stage's chunk size changed in the pipeline file.
    const { config: edited } = await writePipeline(dir, generatedPipeline('changed-options', 'chunkRecords: 25\n  concurrency: 1'));
    const changed = await runImport({ config: edited, stateDir: state }, { client: f.client }).catch((e: unknown) => e);
    expect(changed).toMatchObject({ code: 'INPUT_CHANGED', details: { stage: 'messages' } });
    expect((changed as Error).message).toMatch(/^the messages stage's input, or the pipeline file's mapping or options for it \(threads, chunkRecords, chunkBytes, lanes, …\), changed since the interrupted run/);
    expect((changed as Error).message).toMatch(/finish with the original input and pipeline file, or start over with --restart$/);
  });

  it('stops with INPUT_CHANGED when a stage it finished reading (and will not read again) lists other input on resume', async () => {
    const { dir, csv, config, state } = await interruptedInMessages('changed-finished', 'chf-');

    // A user appended to users.csv, a stage the interrupted run finished: a resume would never read it.
    await writeInput(dir, 'users.csv', `${csv.users}late,chf-late,Late User\n`);
    const changed = await runImport({ config, stateDir: state }, { client: f.client }).catch((e: unknown) => e);
    expect(changed).toMatchObject({ code: 'INPUT_CHANGED', details: { stage: 'users', then: { files: 1 }, now: { files: 1 } } });
    expect((changed as Error).message).toMatch(/^the users input changed since the interrupted run read it/);
    expect(exitCodeFor(changed)).toBe(ExitCode.DATA_INVALID);

    // The original input back: the run resumes (the refused attempt left no trace) and ends as an uninterrupted one would.
    await writeInput(dir, 'users.csv', csv.users);
    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed).toMatchObject({ status: 'succeeded', attempt: 2, stages: { users: { read: 3, imported: 3 }, messages: { read: 200, imported: 200 } } });
  });
});
