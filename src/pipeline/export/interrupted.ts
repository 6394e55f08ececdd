/**
 * A run first finishes what an earlier run of its dates, killed outright while publishing (SIGKILL, OOM),
 * left half done in its format (conventions.md: a new run first finishes what an earlier run left
 * pending), so such a date is whole again with `_SUCCESS` even when this run fails before publishing it.
 * A half-done publication in another format is left for this run to replace (format-guard.ts). So are the
 * date's rejects: a run killed after publishing the data but before moving its rejects into place left them
 * aside, where the next run would discard them while the manifest names them.
 */
import { basename } from 'node:path';
import type { Destination, OutputFormat, Partition } from '../../sinks/index.js';
import type { Logger } from '../../shared/logger.js';
import { isS3Url } from '../../shared/s3-location.js';
import { finishKilledRunRejects } from './rejects-file.js';

export async function finishInterruptedPublications(destination: Destination, partitions: readonly Partition[], format: OutputFormat, logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const partition of partitions) {
    const outcome = await destination.finishInterrupted(partition, format);
    if (outcome === 'finished') logger.warn({ dataset: partition.dataset, date: partition.date }, 'finished the publication a killed run had left half done');
    if (outcome === 'discarded')
      logger.warn({ dataset: partition.dataset, date: partition.date }, 'the publication a killed run had left half done could not be finished (a file of it is gone): discarded, this run replaces the date');
    const named = await rejectsNamedBy(destination, partition);
    const names = new Set(named.map((r) => basename(r.path)));
    for (const rejects of named) {
      // Rejects in the store went up before the manifest that names them: nothing is left aside.
      if (isS3Url(rejects.path)) continue;
      if (await finishKilledRunRejects(rejects.path, rejects.window, names))
        logger.warn({ dataset: partition.dataset, date: partition.date, rejectsFile: rejects.path }, 'moved into place the rejects a killed run had left aside');
    }
  }
}

/** The rejects files the date's published manifest names (none when it has none or cannot be read: format-guard.ts names such a file). */
async function rejectsNamedBy(destination: Destination, partition: Partition): Promise<Array<{ path: string; window: boolean }>> {
  const text = await destination.readManifest(partition);
  let details: { rejectsFile?: unknown; undatedRejectsFile?: unknown; window?: { days?: unknown } } | undefined;
  try {
    details = text === undefined ? undefined : (JSON.parse(text) as { details?: typeof details }).details;
  } catch {
    return [];
  }
  const window = Array.isArray(details?.window?.days) && details.window.days.length > 1;
  return [details?.rejectsFile, details?.undatedRejectsFile].filter((p): p is string => typeof p === 'string').map((path) => ({ path, window }));
}

/**
 * The dates of the run's datasets, other than its own, left without `_SUCCESS`: a run killed while
 * publishing them, whose repair only a run of that date makes. They are reported, not finished: a run of
 * that date may be publishing it at this moment (a backfill beside the nightly run), and finishing it from
 * here would delete that run's files.
 */
export async function unfinishedOtherDates(destination: Destination, datasets: readonly string[], own: readonly Partition[], logger: Pick<Logger, 'warn'>): Promise<Partition[]> {
  const unfinished: Partition[] = [];
  for (const dataset of datasets) {
    for (const date of await destination.unmarkedDates(dataset)) {
      if (own.some((p) => p.dataset === dataset && p.date === date)) continue;
      unfinished.push({ dataset, date });
      logger.warn({ dataset, date }, 'a date of this dataset has no _SUCCESS (a run killed while publishing it, or one publishing it now): readers ignore it until that date is exported again');
    }
  }
  return unfinished;
}
