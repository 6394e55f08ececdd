import { execFile } from 'node:child_process';
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEntry } from '../../src/pipeline/runs/index.js';
import { generateCsvs, generatedPipeline, runCli, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';

/** Bytes of the files under `dir`, as find(1) reports them. */
async function bytesOnDisk(dir: string): Promise<number> {
  const { stdout } = await promisify(execFile)('find', [dir, '-type', 'f', '-printf', '%s\\n']);
  return stdout.split('\n').filter(Boolean).reduce((n, s) => n + Number(s), 0);
}

const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * `chatport runs` over the real CLI: two finished imports, a dry run, and an unfinished run (stopped by
 * --max-rejects 0) that a later import resumes — after prune, which must leave it alone.
 */
describe('chatport runs', () => {
  let f: ImportFixture;
  let pipeline: string;
  let state: string;
  const ids: Record<'first' | 'second' | 'dry' | 'unfinished', string> = { first: '', second: '', dry: '', unfinished: '' };
  const newRun = async (before: string[]) => (await readdir(join(state, 'runs'))).find((id) => !before.includes(id))!;
  const runIds = () => readdir(join(state, 'runs')).catch(() => [] as string[]);

  beforeAll(async () => {
    f = await startImportFixture();
    state = join(f.dir, 'state');
    const csv = generateCsvs({ users: 4, channels: 2, messages: 120 }, 'runs-');
    await writeInput(f.dir, 'users.csv', csv.users);
    await writeInput(f.dir, 'channels.csv', csv.channels);
    await writeInput(f.dir, 'messages.csv', csv.messages);
    pipeline = (await writePipeline(f.dir, generatedPipeline('runs-test', 'chunkRecords: 20\n  concurrency: 2'), f.env)).path;
    for (const name of ['first', 'second'] as const) {
      const before = await runIds();
      expect((await runCli(['import', pipeline, '--state', state, '--no-verify'], f.env)).code).toBe(0);
      ids[name] = await newRun(before);
    }
    let before = await runIds();
    expect((await runCli(['import', pipeline, '--state', state, '--dry-run'], f.env)).code).toBe(0);
    ids.dry = await newRun(before);
    await writeInput(f.dir, 'messages.csv', `${csv.messages}m999,c0,nobody,hello\n`);
    before = await runIds();
    expect((await runCli(['import', pipeline, '--state', state, '--max-rejects', '0', '--no-verify'], f.env)).code).toBe(65);
    ids.unfinished = await newRun(before);
  }, 180_000);
  afterAll(() => f.close());

  it('lists every run with its status, counts and size on disk', async () => {
    const out = await runCli(['runs', 'list', pipeline, '--state', state, '--json'], f.env);
    expect(out.code, out.stderr).toBe(0);
    const runs = JSON.parse(out.stdout) as RunEntry[];
    expect(runs.map((r) => [r.runId, r.status, r.finished])).toEqual([
      [ids.first, 'succeeded', true], [ids.second, 'succeeded', true], [ids.dry, 'dry-run', true], [ids.unfinished, 'unfinished', false],
    ]);
    for (const run of runs) expect(run.bytes).toBe(await bytesOnDisk(run.runDir));
    expect(runs[0]!.totals).toMatchObject({ read: 126, imported: 126, rejected: 0 });
    expect(runs[0]!.durationMs).toBeGreaterThan(0);

    const table = await runCli(['runs', 'list', '--state', state], f.env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^run\s+started\s+status\s+attempts\s+duration\s+read\s+imported\s+rejected\s+on disk$/);
    expect(lines[1]).toMatch(new RegExp(`^${ids.first}\\s+\\S+Z\\s+succeeded\\s+1\\s+\\S+\\s+126\\s+126\\s+0\\s+[\\d.]+ KB$`));
    expect(lines[4]).toContain(`${ids.unfinished}`);
    expect(lines[5]).toBe(`4 run(s), ${lines[5]!.split(' ')[2]} KB in ${state}/runs`);
  });

  it('shows one run by the start of its id, and names its report page', async () => {
    const out = await runCli(['runs', 'show', '--state', state, ids.first.slice(0, 16)], f.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`run ${ids.first} (runs-test, attempt 1): succeeded`);
    expect(out.stdout).toMatch(/^messages\s+120\s+120\s/m);
    expect(out.stdout).toContain(`report page: ${join(state, 'runs', ids.first, 'report.html')}`);
    const report = await runCli(['report', '--state', state, ids.second], f.env);
    expect(report.stdout).toBe(`${join(state, 'runs', ids.second, 'report.html')}\n`);
    expect(await exists(report.stdout.trim())).toBe(true);
    const missing = await runCli(['runs', 'show', '--state', state, 'ZZZZ'], f.env);
    expect(missing.code).toBe(66);
  });

  it('refuses to prune without saying which runs', async () => {
    const out = await runCli(['runs', 'prune', '--state', state], f.env);
    expect(out.code).toBe(64);
    expect(await runIds()).toHaveLength(4);
  });

  it('prunes finished runs but the newest, prints what it freed, and leaves the unfinished run to resume', async () => {
    const sizes = { first: await bytesOnDisk(join(state, 'runs', ids.first)), second: await bytesOnDisk(join(state, 'runs', ids.second)) };
    const dry = await runCli(['runs', 'prune', pipeline, '--state', state, '--keep', '1', '--dry-run'], f.env);
    expect(dry.stdout).toContain(`would free`);
    expect(await runIds()).toHaveLength(4);

    const out = await runCli(['runs', 'prune', pipeline, '--state', state, '--keep', '1'], f.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`removed ${ids.first} (succeeded`);
    expect(out.stdout).toContain(`removed ${ids.second} (succeeded`);
    expect(out.stdout).toContain(`(${sizes.first + sizes.second} bytes) in 2 run(s); 2 kept`);
    expect((await runIds()).sort()).toEqual([ids.dry, ids.unfinished].sort());

    const none = await runCli(['runs', 'prune', '--state', state, '--older-than', '7d', '--json'], f.env);
    expect(JSON.parse(none.stdout)).toEqual({ removed: [], bytesFreed: 0, dryRun: false });

    const resumed = await runCli(['import', pipeline, '--state', state, '--no-verify', '--json'], f.env);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ runId: ids.unfinished, attempt: 2, status: 'completed-with-rejects' });

    const all = await runCli(['runs', 'prune', '--state', state, '--older-than', '0m', '--json'], f.env);
    expect(JSON.parse(all.stdout).removed).toEqual([ids.dry, ids.unfinished]);
    expect(await runIds()).toEqual([]);
  });
});
