import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runValidate } from '../../src/pipeline/import/run-validate.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';
import { all, generateCsvs, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const CLI = join(import.meta.dirname, '../../src/cli/main.ts');

/** Users and channels from CSV, messages from `messages` (a path or glob), NDJSON. */
function pipelineYaml(name: string, messages: string): string {
  return generatedPipelineYaml({ name, options: 'chunkRecords: 250\n  concurrency: 2', messagesSource: `{ path: "${messages}", format: ndjson }` });
}

function messagesNdjson(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => JSON.stringify({ id: `m${i}`, channel: `c${i % 2}`, author: `${prefix}user${i % 3}`, text: `message ${i} ${'x'.repeat(40)}` })).join('\n') + '\n';
}

async function setUp(name: string, messages: string, files: Record<string, string | Buffer> = {}) {
  const dir = join(f.dir, name);
  const csv = generateCsvs({ users: 3, channels: 2, messages: 0 }, `${name}-`);
  await writeInput(dir, 'users.csv', csv.users);
  await writeInput(dir, 'channels.csv', csv.channels);
  for (const [file, content] of Object.entries(files)) await writeInput(dir, file, content);
  const { config, path } = await writePipeline(dir, pipelineYaml(name, messages));
  return { dir, config, path };
}

async function usersNamed(prefix: string): Promise<string[]> {
  return (await all(f.client.users.list())).map((u) => u.name).filter((n) => n.startsWith(prefix));
}

async function failureOf(promise: Promise<unknown>): Promise<Error & { code: string; details: Record<string, unknown> }> {
  const outcome = await promise.then(() => undefined, (e: unknown) => e);
  if (outcome === undefined) throw new Error('expected the run to fail');
  return outcome as Error & { code: string; details: Record<string, unknown> };
}

describe('pre-flight: every input exists and parses before anything is sent', () => {
  it('a missing messages file stops the run with exit 66 before the users stage uploads', async () => {
    const { dir, config } = await setUp('pfmissing', 'messages.ndjson');
    const error = await failureOf(runImport({ config, stateDir: join(dir, 'state') }, { client: f.client }));
    expect(error.code).toBe('INPUT_MISSING');
    expect(exitCodeFor(error)).toBe(66);
    expect(error.message).toContain('messages.ndjson');
    expect(await usersNamed('pfmissing-')).toEqual([]);
  });

  it('an empty glob is an error naming the pattern (exit 66), in import and in validate', async () => {
    const { dir, config } = await setUp('pfglob', 'parts/*.ndjson');
    const error = await failureOf(runImport({ config, stateDir: join(dir, 'state') }, { client: f.client }));
    expect(exitCodeFor(error)).toBe(66);
    expect(error.message).toContain('parts/*.ndjson');
    expect(await usersNamed('pfglob-')).toEqual([]);
    const invalid = await failureOf(runValidate(config, { outDir: join(dir, 'validate') }));
    expect(exitCodeFor(invalid)).toBe(66);
  });

  it('a messages file whose first record does not parse stops the run with exit 65 naming file and line', async () => {
    const { dir, config } = await setUp('pfparse', 'messages.ndjson', { 'messages.ndjson': `{"id": "m0", "channel": c0}\n${messagesNdjson('pfparse-', 5)}` });
    const error = await failureOf(runImport({ config, stateDir: join(dir, 'state') }, { client: f.client }));
    expect(exitCodeFor(error)).toBe(65);
    expect(error.message).toMatch(/messages\.ndjson at line 1 cannot be read/);
    expect(error.details).toMatchObject({ stage: 'messages', line: 1 });
    expect(await usersNamed('pfparse-')).toEqual([]);
  });

  it('says what to do when the first record is in another encoding, or the file is one JSON document read as NDJSON', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"id": "m0", "channel": "c0", "text": "caf'), Buffer.from([0xe9]), Buffer.from(`"}\n${messagesNdjson('pfhint-', 2)}`)]);
    const encoded = await setUp('pfhint1', 'messages.ndjson', { 'messages.ndjson': latin1 });
    const wrongEncoding = await failureOf(runValidate(encoded.config, { outDir: join(encoded.dir, 'validate') }));
    expect(exitCodeFor(wrongEncoding)).toBe(65);
    expect(wrongEncoding.message).toMatch(/byte 0xE9 .*; nothing was sent — if the file is in another encoding, name it in the stage's source \(encoding: windows-1252, latin1/);
    const pretty = await setUp('pfhint2', 'messages.ndjson', { 'messages.ndjson': '{\n  "messages": []\n}\n' });
    const oneDocument = await failureOf(runValidate(pretty.config, { outDir: join(pretty.dir, 'validate') }));
    expect(exitCodeFor(oneDocument)).toBe(65);
    expect(oneDocument.message).toMatch(/at line 1 cannot be read: not valid JSON.*; nothing was sent — NDJSON holds one whole JSON object per line; a JSON file holds an array of records/);
  });

  it('a CSV whose first row has another number of fields than its header says what was expected once', async () => {
    const files = { 'users.csv': 'id,username,display\nu0,pfcount-user0,User 0,extra\n', 'messages.ndjson': messagesNdjson('pfcount-', 2) };
    const { dir, config } = await setUp('pfcount', 'messages.ndjson', files);
    const error = await failureOf(runImport({ config, stateDir: join(dir, 'state') }, { client: f.client }));
    expect(exitCodeFor(error)).toBe(65);
    expect(error.message).toMatch(/users\.csv at line 2 cannot be read: expected 3 fields \(as the header has\), found 4; nothing was sent/);
    expect(error.message.match(/expected 3 fields/g)).toHaveLength(1);
  });

  it('a first record broken alone (a stray quote in CSV, one bad JSON array element) is rejected like any later one, and the rest is imported', async () => {
    // Only the format or encoding being wrong stops a run before it sends: these records are each one bad row.
    const csvUsers = 'id,username,display\nu0,pfalone-user0,Cy "Q" Oh\nu1,pfalone-user1,User 1\nu2,pfalone-user2,User 2\n';
    const dir = join(f.dir, 'pfalone');
    await writeInput(dir, 'users.csv', csvUsers);
    await writeInput(dir, 'channels.csv', 'key,name,members\nc0,pfalone-chan-0,pfalone-user1|pfalone-user2\n');
    await writeInput(dir, 'messages.json', `[{"id":"m0","channel":"c0","author":"pfalone-user1","text":"a",},${JSON.stringify({ id: 'm1', channel: 'c0', author: 'pfalone-user1', text: 'b' })}]`);
    const { config } = await writePipeline(dir, generatedPipelineYaml({ name: 'pfalone', options: 'chunkRecords: 250', messagesSource: '{ path: "messages.json", format: json }' }));
    const report = await runImport({ config, stateDir: join(dir, 'state'), maxRejects: 10, verify: false }, { client: f.client });
    const { users, messages } = report.stages;
    expect([users?.read, users?.imported, users?.rejected]).toEqual([3, 2, 1]);
    expect([messages?.read, messages?.imported, messages?.rejected]).toEqual([2, 1, 1]);
    expect((await usersNamed('pfalone-')).sort()).toEqual(['pfalone-user1', 'pfalone-user2']);
  });

  it('a bad gzip header stops the run with exit 65 naming the file, before anything is sent', async () => {
    const bad = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0xff]), Buffer.from('not a gzip stream at all, only its magic bytes')]);
    const { dir, config } = await setUp('pfgzip', 'messages.ndjson.gz', { 'messages.ndjson.gz': bad });
    const error = await failureOf(runImport({ config, stateDir: join(dir, 'state') }, { client: f.client }));
    expect(exitCodeFor(error)).toBe(65);
    expect(error.message).toContain('messages.ndjson.gz');
    expect(await usersNamed('pfgzip-')).toEqual([]);
  });
});

describe('a run that fails mid-stage reports what it sent', () => {
  it('a gzip cut in the middle: report.json and stdout give the messages stage counts, status failed and the error at its file and position', async () => {
    const whole = gzipSync(messagesNdjson('pftrunc-', 6000));
    const { dir, path } = await setUp('pftrunc', 'messages.ndjson.gz', { 'messages.ndjson.gz': whole.subarray(0, Math.floor(whole.length / 2)) });
    const env = { ...process.env, CHATPORT_LOG_LEVEL: 'warn', ...f.env };
    const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, 'import', path, '--state', join(dir, 'state'), '--json'], { env }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(result.code).toBe(65);
    const printed = JSON.parse(result.stdout) as RunReport;
    const report = JSON.parse(await readFile(join(printed.runDir, 'report.json'), 'utf8')) as RunReport;
    expect(report).toEqual(printed);
    expect(report.status).toBe('failed');
    expect(report.error?.code).toBe('DATA_INVALID');
    expect(report.error?.exitCode).toBe(65);
    expect(report.error?.message).toMatch(/messages\.ndjson\.gz after line \d+ \(\d+ records read\)/);
    const messages = report.stages.messages!;
    expect(messages.imported).toBeGreaterThanOrEqual(1000);
    expect(messages.read).toBe(messages.imported + messages.rejected + messages.skipped + messages.duplicates + messages.pending);
    expect(report.totals.balanced).toBe(true);
    const held = (await all(f.client.messages.list({ pageSize: 100 }))).length;
    expect(held).toBeGreaterThanOrEqual(messages.imported);

    const table = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, 'import', path, '--state', join(dir, 'state')], { env }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(table.code).toBe(65);
    expect(table.stdout).toMatch(/: failed\n/);
    expect(table.stdout).toMatch(/^messages\s+\d+\s+\d+/m);
    expect(table.stdout).toContain('stopped by DATA_INVALID');
  });
});
