import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCsvs, generatedPipeline, startImportFixture, type ImportFixture, writeCsvs } from '../import/support.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const CLI_ENTRY = join(ROOT, 'src/cli/main.ts');
const COLUMNS = 100;
const SOCKET = `chatport-test-${process.pid}`;
const tmux = (...args: string[]) => run('tmux', ['-L', SOCKET, ...args]);
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  await f.close();
});

/** Polls until `done()` holds: the CLI's pace on a loaded machine decides how long, not a fixed sleep. */
async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the terminal during an import (tmux, 100 columns)', () => {
  it('shows no JSON line, no line wider than the terminal, and the final report exactly once', async () => {
    const csv = generateCsvs({ users: 20, channels: 10, messages: 300_000 });
    await writeCsvs(f.dir, csv);
    const pipeline = join(f.dir, 'pipeline.yaml');
    await writeFile(pipeline, generatedPipeline('terminal', 'chunkRecords: 5000\n  concurrency: 4'));
    const exitFile = join(f.dir, 'exit-code');
    const env = Object.entries({ ...f.env, CHATPORT_LOG_LEVEL: 'info' }).map(([k, v]) => `${k}=${quote(v)}`).join(' ');
    const command = `env ${env} ${quote(process.execPath)} --import tsx ${quote(CLI_ENTRY)} import ${quote(pipeline)} --state ${quote(join(f.dir, 'state'))}; echo $? > ${quote(exitFile)}; exec sleep 3600`;
    await tmux('new-session', '-d', '-x', String(COLUMNS), '-y', '40', '-c', ROOT, '-s', 'import', command);
    await tmux('set-option', '-g', 'history-limit', '10000');

    await waitFor(() => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n'), 300_000);
    // -J joins lines the terminal wrapped, so a line wider than the terminal shows as one long line.
    const { stdout: screen } = await tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'import');
    const lines = screen.split('\n').map((l) => l.trimEnd());

    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0');
    expect(lines.filter((l) => l.length > COLUMNS)).toEqual([]);
    expect(lines.filter((l) => /^\s*\{.*"level"/.test(l))).toEqual([]);
    expect(lines.filter((l) => /^run \w+ \(terminal, attempt 1\): /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('every record accounted for'))).toHaveLength(1);
    expect(lines.filter((l) => /^messages\s+300000\s+300000\s/.test(l))).toHaveLength(1);
    // The live area was cleared before the report, not printed again below it.
    expect(lines.filter((l) => l.includes('rec/s'))).toEqual([]);
    // The logs went to the run folder instead.
    const runDir = /^run directory: (.*)$/m.exec(screen)![1]!;
    const log = readFileSync(join(runDir, 'log.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
    expect(log.map((l) => l.msg)).toContain('starting a run');
  }, 360_000);
});
