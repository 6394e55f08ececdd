import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const CLI_ENTRY = join(import.meta.dirname, '../../src/cli/main.ts');

/** Runs the CLI in `cwd` (where `chatport report` looks for ./.chatport/); resolves whatever the exit code. */
async function reportIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', import.meta.resolve('tsx'), CLI_ENTRY, 'report', ...args], { cwd, env: { ...process.env, CHATPORT_LOG_LEVEL: 'silent' } });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

/** `chatport report` without a pipeline file: the newest page under ./.chatport/, a run id, a folder. */
describe('chatport report', () => {
  let cwd: string;
  const page = (pipeline: string, runId: string) => join(cwd, '.chatport', pipeline, 'runs', runId, 'report.html');

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'chatport-report-cmd-'));
    for (const [pipeline, runId] of [['a', '01KAAAAAAAAAAAAAAAAAAAAAAA'], ['b', '01KBBBBBBBBBBBBBBBBBBBBBBB'], ['a', '01KCCCCCCCCCCCCCCCCCCCCCCC']]) {
      await mkdir(join(page(pipeline!, runId!), '..'), { recursive: true });
      await writeFile(page(pipeline!, runId!), '<!doctype html>');
    }
    // A run still going has no page yet: never "the newest report".
    await mkdir(join(cwd, '.chatport', 'b', 'runs', '01KDDDDDDDDDDDDDDDDDDDDDDD'), { recursive: true });
  });

  it('prints the newest report.html, the one a run id names, or a run folder’s', async () => {
    expect(await reportIn(cwd, [])).toEqual({ code: 0, stdout: `${page('a', '01KCCCCCCCCCCCCCCCCCCCCCCC')}\n` });
    expect(await reportIn(cwd, ['01kb'])).toEqual({ code: 0, stdout: `${page('b', '01KBBBBBBBBBBBBBBBBBBBBBBB')}\n` });
    expect(await reportIn(cwd, [join(cwd, '.chatport', 'a', 'runs', '01KAAAAAAAAAAAAAAAAAAAAAAA')])).toEqual({ code: 0, stdout: `${page('a', '01KAAAAAAAAAAAAAAAAAAAAAAA')}\n` });
  }, 60_000);

  it('exits 66 when there is no such page', async () => {
    expect((await reportIn(cwd, ['01KD'])).code).toBe(66);
    expect((await reportIn(cwd, ['01K'])).code).toBe(66);
    expect((await reportIn(await mkdtemp(join(tmpdir(), 'chatport-report-none-')), [])).code).toBe(66);
  }, 60_000);
});
