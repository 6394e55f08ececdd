import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** A full collection once the old generation has grown by this share of what the last one kept. */
const OLD_GENERATION_GROWTH_PERCENT = 25;
/** The young generation stops growing once it reaches this (MB): V8 would take it to 32. */
const YOUNG_GENERATION_MB = 16;

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
  if (stopYoungGrowthAt(youngMb)) return;
  const watch = setInterval(() => {
    if (stopYoungGrowthAt(youngMb)) clearInterval(watch);
  }, 20);
  watch.unref();
}

/** Stops the young generation growing if it has reached `mb`. */
function stopYoungGrowthAt(mb: number): boolean {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (young !== undefined && young.space_size < mb * 2 ** 20) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
