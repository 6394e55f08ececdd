import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';

/** A full collection once the old generation has grown by this share of what the last one kept. */
const OLD_GENERATION_GROWTH_PERCENT = 25;
/** The young generation stops growing once it reaches this (MB): V8 would take it to 32. */
const YOUNG_GENERATION_MB = 16;
/** The sandbox's old generation may grow fourfold between full collections... */
const SANDBOX_GROWTH_PERCENT = 300;
/** ...until its heap holds this much (MB); V8's own growth from then on. */
const SANDBOX_FREE_GROWTH_MB = 64;

let tuned = false;

/**
 * Keeps a long client run's heap near what it keeps (issue 12: an import under 200 MB without the user
 * setting heap flags). V8 sizes its heap for throughput: the young generation grows to 32 MB, and the old
 * one to three or four times what survives a full collection, the more so when little memory outside the
 * heap changes hands (an import of 10M messages keeps 30–40 MB and let its old space reach 130 MB). Both
 * decisions read V8 flags each time they are made, so the process sets them for itself: the old
 * generation grows by a quarter between full collections, and the young one stops growing at `youngMb`
 * (semi-space growth factor 1 from then on; checked every 20 ms, so it may pass it by one doubling).
 * Called before the CLI's modules load (src/cli/main.ts), which would grow it first. Measured on a
 * 1M-message JSON import, five pairs in turn: peak RSS 214–267 → 156–161 MB with an 8 MB young generation,
 * for about 6% more CPU (more collections). 16 MB (2026-11-27, 1M CSV import, five pairs in turn) took
 * 8–10% less CPU than 8 MB for 8–15 MB more RSS: 176 / 182 / 180 MB at 1M / 5M / 10M (BENCHMARKS.md). Not
 * for the sandbox, which keeps gigabytes and would collect them four times as often.
 */
export function keepHeapSmall(youngMb: number = YOUNG_GENERATION_MB): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  checkUntilDone(() => stopYoungGrowthAt(youngMb), 20);
}

/**
 * Lets the sandbox's small heap grow freely (`chatport sandbox`, before its modules load). An import's
 * uploads and stored texts pass through memory outside the heap, and with V8's own growth its heap of
 * 15–40 MB was fully collected about twenty times per million messages (a fifth of its CPU was on V8's
 * helper threads). With the old generation growing fourfold between full collections until the heap holds
 * `untilMb`, a 1M-message CSV import cost the sandbox 9% less CPU (median of six pairs taken in turn,
 * 2026-11-27) for about 10 MB more RSS. Past it V8 decides again: a 10M-message rehearsal peaked as before.
 */
export function growSmallHeapFreely(untilMb: number = SANDBOX_FREE_GROWTH_MB, heap: HeapAccess = V8_HEAP): void {
  heap.setFlags(`--heap-growing-percent=${SANDBOX_GROWTH_PERCENT}`);
  checkUntilDone(() => restoreGrowthPast(untilMb, heap), 100);
}

/** What growSmallHeapFreely reads and sets (tests give their own). */
export interface HeapAccess {
  setFlags(flags: string): void;
  usedBytes(): number;
}

const V8_HEAP: HeapAccess = { setFlags: setFlagsFromString, usedBytes: () => getHeapStatistics().used_heap_size };

/** Runs `done` now and then every `everyMs` (without keeping the process alive) until it returns true. */
function checkUntilDone(done: () => boolean, everyMs: number): void {
  if (done()) return;
  const watch = setInterval(() => {
    if (done()) clearInterval(watch);
  }, everyMs);
  watch.unref();
}

/** Gives the old generation's growth back to V8 once the heap holds `mb`. */
function restoreGrowthPast(mb: number, heap: HeapAccess): boolean {
  if (heap.usedBytes() < mb * 2 ** 20) return false;
  heap.setFlags('--heap-growing-percent=0'); // 0: V8's own factor
  return true;
}

/** Stops the young generation growing if it has reached `mb`. */
function stopYoungGrowthAt(mb: number): boolean {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (young !== undefined && young.space_size < mb * 2 ** 20) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
