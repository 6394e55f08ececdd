/**
 * The state-folder lock under real contention: 20 node processes (each importing the built lock module
 * from dist/) race for one lock path, round after round; exactly one wins every round, also when a stale
 * lock of a dead process is there to be taken over.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/pipeline/state/lock.js';

const ROOT = join(import.meta.dirname, '../..');
const BUILT_LOCK = join(ROOT, 'dist/pipeline/state/lock.js');
const RACERS = 20;

/** Builds dist/ when the lock's sources are newer than the built module, so the children run this code. */
function ensureBuilt(): void {
  const sources = ['src/pipeline/state/lock.ts', 'src/shared/lock-owner.ts', 'src/shared/errors.ts'].map((p) => statSync(join(ROOT, p)).mtimeMs);
  if (existsSync(BUILT_LOCK) && statSync(BUILT_LOCK).mtimeMs >= Math.max(...sources)) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
}

/** A child: says `ready`; per `go <path>` line tries the lock and says `won` or `lost <code>`; per `end` releases. */
const CHILD = `
import { createInterface } from 'node:readline';
const { acquireLock } = await import(process.argv[2]);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\\n');
for (;;) {
  const { value, done } = await lines.next();
  if (done || value === 'quit') break;
  let lock;
  try {
    lock = await acquireLock(value.slice(3));
    process.stdout.write('won\\n');
  } catch (error) {
    process.stdout.write('lost ' + error.code + '\\n');
  }
  await lines.next();
  await lock?.release();
  process.stdout.write('released\\n');
}
`;

interface Racer {
  child: ChildProcessWithoutNullStreams;
  next(): Promise<string>;
}

function startRacer(script: string): Racer {
  const child = spawn(process.execPath, [script, pathToFileURL(BUILT_LOCK).href], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    next: async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error(`racer ${child.pid} ended early`);
      return value as string;
    },
  };
}

let dir: string;
let racers: Racer[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'chatport-lock-race-'));
  const script = join(dir, 'racer.mjs');
  writeFileSync(script, CHILD);
  racers = Array.from({ length: RACERS }, () => startRacer(script));
  for (const racer of racers) expect(await racer.next()).toBe('ready');
}, 120_000);

afterAll(async () => {
  await Promise.all(
    racers.map(
      (r) =>
        new Promise<void>((resolve) => {
          r.child.on('exit', () => resolve());
          r.child.stdin.end('quit\n');
        }),
    ),
  );
});

/** One round: every racer tries `lockPath` at once; returns how the racers fared, after all released. */
async function race(lockPath: string): Promise<{ results: string[]; ownerPid: number | undefined }> {
  for (const r of racers) r.child.stdin.write(`go ${lockPath}\n`);
  const results = await Promise.all(racers.map((r) => r.next()));
  const winner = racers[results.indexOf('won')];
  const ownerPid = (JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number }).pid;
  expect(ownerPid).toBe(winner?.child.pid);
  for (const r of racers) r.child.stdin.write('end\n');
  expect(await Promise.all(racers.map((r) => r.next()))).toEqual(racers.map(() => 'released'));
  expect(existsSync(lockPath)).toBe(false);
  return { results, ownerPid };
}

const tally = (results: string[]) => ({ won: results.filter((r) => r === 'won').length, locked: results.filter((r) => r === 'lost STATE_LOCKED').length });

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the state-folder lock under 20 racing processes', () => {
  it('lets exactly one process win, every round of ten', async () => {
    for (let round = 0; round < 10; round++) {
      const { results } = await race(join(dir, `clean-${round}`, 'lock'));
      expect(tally(results)).toEqual({ won: 1, locked: RACERS - 1 });
    }
  }, 120_000);

  it('lets exactly one process take over the stale lock of a dead process, every round (current and pid-only lock files)', async () => {
    for (let round = 0; round < 10; round++) {
      const lockPath = join(dir, `stale-${round}`, 'lock');
      const pid = await deadPid();
      // A fresh heartbeat: only the dead pid makes it stale.
      const content = round % 2 === 0 ? JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString(), token: 'deadbeef' }) : String(pid);
      mkdirSync(join(lockPath, '..'), { recursive: true });
      writeFileSync(lockPath, content);
      const { results, ownerPid } = await race(lockPath);
      expect(tally(results)).toEqual({ won: 1, locked: RACERS - 1 });
      expect(ownerPid).not.toBe(pid);
    }
  }, 120_000);
});

describe('the lock file', () => {
  it('names its owner from the first moment, refuses a live owner (exit 75), and is taken over once its heartbeat is old', async () => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'chatport-lock-')), 'state', 'lock');
    const first = await acquireLock(lockPath);
    expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), token: expect.stringMatching(/^[0-9a-f]+$/) });
    await expect(acquireLock(lockPath)).rejects.toMatchObject({ code: 'STATE_LOCKED', details: { pid: process.pid } });
    await first.release();

    // Another live process (our parent) on another host: alive or not cannot be told, only the heartbeat.
    writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, host: 'elsewhere', startedAt: '2026-01-01T00:00:00Z', token: 'abc' }));
    await expect(acquireLock(lockPath, { staleAfterMs: 60_000 })).rejects.toMatchObject({ code: 'STATE_LOCKED', message: expect.stringContaining('on elsewhere') });
    const old = new Date(Date.now() - 120_000);
    utimesSync(lockPath, old, old);
    const second = await acquireLock(lockPath, { staleAfterMs: 60_000 });
    expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    await second.release();
  });

  it('refreshes its heartbeat while held', async () => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'chatport-lock-')), 'lock');
    const held = await acquireLock(lockPath, { heartbeatMs: 10 });
    const old = new Date(Date.now() - 120_000);
    utimesSync(lockPath, old, old);
    // No deadline but the test's: the heartbeat comes every 10 ms, however loaded the machine.
    while (statSync(lockPath).mtimeMs <= old.getTime()) await new Promise((r) => setTimeout(r, 10));
    await held.release();
    expect(existsSync(lockPath)).toBe(false);
  });
});
