import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { growSmallHeapFreely } from '../../src/shared/heap-sizing.js';

const ROOT = join(import.meta.dirname, '..', '..');

// A child process (V8's heap is per process): young garbage with a rolling window that survives a few
// collections, as an import's batches do; prints the young generation's size when tuning was asked for
// and the most it reached afterwards, in MB.
const CHILD = `
import v8 from 'node:v8';
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
if (process.argv.includes('tuned')) (await import('./src/shared/heap-sizing.ts')).keepHeapSmall(8);
const atStart = young();
let most = atStart;
let window = [];
for (let round = 0; round < 400; round++) {
  for (let i = 0; i < 5000; i++) window.push({ text: 'record ' + round + ':' + i, n: [i, round] });
  if (window.length > 40000) window = window.slice(20000);
  most = Math.max(most, young());
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(JSON.stringify({ atStart, most }));
`;

function run(tuned: boolean): { atStart: number; most: number } {
  const ran = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, ...(tuned ? ['tuned'] : [])], { cwd: ROOT, encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(ran.stderr);
  return JSON.parse(ran.stdout) as { atStart: number; most: number };
}

describe('keepHeapSmall', () => {
  it('stops the young generation growing where it is told, here 8 MB (16 if it doubles before the next check), where V8 alone grows it to 32 MB', () => {
    const alone = run(false);
    expect(alone.most).toBeGreaterThan(16);
    const tuned = run(true);
    expect(tuned.most).toBeLessThanOrEqual(Math.max(16, tuned.atStart));
  });
});

describe('growSmallHeapFreely (the sandbox)', () => {
  afterEach(() => vi.useRealTimers());

  it('lets the old generation grow fourfold until the heap holds what it is told, then hands growth back to V8 and stops looking', () => {
    vi.useFakeTimers();
    const flags: string[] = [];
    let used = 10 * 2 ** 20;
    let reads = 0;
    growSmallHeapFreely(64, { setFlags: (f) => flags.push(f), usedBytes: () => (reads++, used) });
    expect(flags).toEqual(['--heap-growing-percent=300']);
    vi.advanceTimersByTime(5_000);
    expect(flags).toEqual(['--heap-growing-percent=300']);
    used = 64 * 2 ** 20 - 1;
    vi.advanceTimersByTime(1_000);
    expect(flags).toEqual(['--heap-growing-percent=300']);
    used = 64 * 2 ** 20;
    vi.advanceTimersByTime(100);
    expect(flags).toEqual(['--heap-growing-percent=300', '--heap-growing-percent=0']);
    const readsThen = reads;
    vi.advanceTimersByTime(10_000);
    expect(reads).toBe(readsThen);
  });

  it('hands growth back at once when the heap already holds that much', () => {
    const flags: string[] = [];
    growSmallHeapFreely(1, { setFlags: (f) => flags.push(f), usedBytes: () => 2 ** 20 });
    expect(flags).toEqual(['--heap-growing-percent=300', '--heap-growing-percent=0']);
  });
});
