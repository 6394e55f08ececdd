/**
 * A run first finishes what an earlier run of its dates, killed outright while publishing (SIGKILL, OOM),
 * left half done in its format (conventions.md: a new run first finishes what an earlier run left
 * pending), so such a date is whole again with `_SUCCESS` even when this run fails before publishing it.
 * A half-done publication in another format is left for this run to replace (format-guard.ts).
 */
import type { Destination, OutputFormat, Partition } from '../../sinks/index.js';
import type { Logger } from '../../shared/logger.js';

export async function finishInterruptedPublications(destination: Destination, partitions: readonly Partition[], format: OutputFormat, logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const partition of partitions) {
    if (await destination.finishInterrupted(partition, format))
      logger.warn({ dataset: partition.dataset, date: partition.date }, 'finished the publication a killed run had left half done');
  }
}
