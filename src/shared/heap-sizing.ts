import { setFlagsFromString } from 'node:v8';

/** A full collection once the old generation has grown by this share of what the last one kept. */
const OLD_GENERATION_GROWTH_PERCENT = 25;

let tuned = false;

/**
 * Keeps a long client run's heap near what it keeps (issue 12: an import under 200 MB without the user
 * setting heap flags). V8 sizes its heap for throughput: the young generation grows to 32 MB, and the old
 * one to three or four times what survives a full collection, the more so when little memory outside the
 * heap changes hands (an import of 10M messages keeps 30–40 MB and let its old space reach 130 MB). Both
 * decisions read V8 flags each time they are made, so the process sets them for itself: the old
 * generation grows by a quarter between full collections, and the young one stops growing where it is
 * (semi-space growth factor 1; loading the CLI's modules leaves it at 16 MB). Measured on a 1M-message
 * import: peak RSS about 190–210 → 170–175 MB, CPU within the run-to-run noise (BENCHMARKS.md). Not for
 * the sandbox, which keeps gigabytes and would collect them four times as often.
 */
export function keepHeapSmall(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  setFlagsFromString('--semi-space-growth-factor=1');
}
