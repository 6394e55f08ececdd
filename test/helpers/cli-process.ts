import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JournalEvent } from '../../src/pipeline/state/events.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI from source as a real child process, the parent's CHAT_*, CHATPORT_* and *_EXPORT variables
 * left out (the test names every one it needs). With `killWhen`, polled every few milliseconds, SIGKILLs the
 * process the moment it holds: no chance to save anything.
 */
export function chatportProcess(args: string[], env: Record<string, string>, killWhen?: () => Promise<boolean>, preload: string[] = []): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CHAT_|CHATPORT_|SLACK_|JOB_COMPLETION_INDEX|AWS_BATCH_)/.test(k)));
    const child = spawn(process.execPath, ['--import', 'tsx', ...preload.flatMap((p) => ['--import', p]), join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env: { CHATPORT_LOG_LEVEL: 'warn', ...base, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    let done = false;
    child.on('close', (code, signal) => {
      done = true;
      resolve({ code, signal, stdout, stderr });
    });
    if (killWhen)
      void (async () => {
        while (!done && !(await killWhen())) await new Promise((r) => setTimeout(r, 5));
        if (!done) child.kill('SIGKILL');
      })();
  });
}

/**
 * The CLI as a child process, SIGKILLed at an exact line of its journal (test/helpers/kill-at-journal-line.mjs):
 * `at` is `<event kind>:<n>:after|before|torn[:<text the line holds>]`, counted over this process's lines.
 */
export function chatportKilledAt(args: string[], env: Record<string, string>, at: string): Promise<Ran> {
  return chatportProcess(args, { ...env, CHATPORT_TEST_KILL_AT: at }, undefined, [pathToFileURL(join(ROOT, 'test/helpers/kill-at-journal-line.mjs')).href]);
}

/** A state folder's journal as it stands (a line cut short by a kill is left out). */
export async function journalEvents(stateDir: string): Promise<JournalEvent[]> {
  const text = await readFile(join(stateDir, 'journal.ndjson'), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.endsWith('}')).map((l) => JSON.parse(l) as JournalEvent);
}

/** How many events of a kind (of one stage) a journal holds. */
export const countEvents = (events: JournalEvent[], t: JournalEvent['t'], stage?: string) =>
  events.filter((e) => e.t === t && (!stage || ('stage' in e && e.stage === stage))).length;

/**
 * The CLI as a child process, SIGKILLed right after its n-th change to the file system under `folder`
 * (test/helpers/kill-at-fs-call.mjs), counting only changes whose paths hold `paths` when given:
 * `killedAt` names that call, undefined when the run ended first.
 */
export async function chatportKilledAtFsCall(args: string[], env: Record<string, string>, n: number, folder: string, paths = ''): Promise<Ran & { killedAt?: string }> {
  const kill = { CHATPORT_TEST_KILL_AT_FS: `${n}:${folder}`, CHATPORT_TEST_KILL_AT_FS_PATHS: paths };
  const ran = await chatportProcess(args, { ...env, ...kill }, undefined, [pathToFileURL(join(ROOT, 'test/helpers/kill-at-fs-call.mjs')).href]);
  const killedAt = /^chatport-fs-call (.*)$/m.exec(ran.stderr)?.[1];
  return killedAt === undefined ? ran : { ...ran, killedAt };
}
