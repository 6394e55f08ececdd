/**
 * One format per table: a warehouse table (Athena, Glue, Hive, Redshift Spectrum, BigQuery external
 * tables) points at `<to>/<dataset>/` and reads every file under it with one format, so Parquet and CSV
 * cannot live side by side in it, and an export in another format must not silently replace a date
 * published in the first. Before any job starts, every partition the run would write is checked against
 * its published manifest; another format with `_SUCCESS` refuses the run (CONFIG_FORMAT_CONFLICT, exit
 * 78), nothing written. A manifest without `_SUCCESS` (a run killed while publishing) refuses nothing.
 * Exporting the same date again in the same format still replaces it (the normal rerun).
 */
import { ChatportError } from '../../shared/errors.js';
import { manifestPath, type Destination, type OutputFormat, type Partition } from '../../sinks/index.js';

export async function refuseOtherFormat(destination: Destination, partitions: readonly Partition[], format: OutputFormat): Promise<void> {
  for (const partition of partitions) {
    const text = await destination.readManifest(partition);
    if (text === undefined) continue;
    const published = parsePublishedManifest(text, destination, partition);
    if (published.format === format) continue;
    // A date without _SUCCESS was never published whole (a run killed while publishing it): readers ignore
    // it, and a run in this format replaces it like any unpublished date.
    if (!(await destination.isMarked(partition))) continue;
    const where = `${destination.root}/${partition.dataset}/dt=${partition.date}`;
    const manifest = manifestUrlOf(destination, partition);
    throw new ChatportError(
      `${where} already holds ${published.format ?? 'another format'} output (run ${published.runId ?? 'unknown'}); a ${format} export would replace it. ` +
        `A table holds one format: export ${format} to another --to (e.g. ${destination.root}/${format}), or delete that date's output first (its data folder ${where} and its manifest ${manifest}) and run again`,
      { code: 'CONFIG_FORMAT_CONFLICT', details: { ...partition, root: destination.root, manifest, published: published.format ?? null, requested: format } },
    );
  }
}

/**
 * A published manifest that is not a JSON object (cut short, overwritten by hand, `null`) cannot say the
 * date's format; every rerun would stop here, so the error names the file and the way out (DATA_INVALID,
 * exit 65: a file that cannot be read, which no retry mends).
 */
function parsePublishedManifest(text: string, destination: Destination, partition: Partition): { format?: string; runId?: string } {
  let parsed: unknown;
  let why = 'it is not a JSON object';
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    why = `it is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as { format?: string; runId?: string };
  const path = manifestUrlOf(destination, partition);
  throw new ChatportError(
    `the published manifest ${path} cannot be read: ${why}. Delete it (and that date's data folder, if it is damaged too) and run the export again to publish ${partition.dataset} ${partition.date} afresh`,
    { code: 'DATA_INVALID', details: { ...partition, root: destination.root, manifest: path } },
  );
}

function manifestUrlOf(destination: Destination, partition: Partition): string {
  return `${destination.root.replace(/\/+$/, '')}/${manifestPath(partition)}`;
}
