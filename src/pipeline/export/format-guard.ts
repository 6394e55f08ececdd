/**
 * One format per table: a warehouse table (Athena, Glue, Hive, Redshift Spectrum, BigQuery external
 * tables) points at `<to>/<dataset>/` and reads every file under it with one format, so Parquet and CSV
 * cannot live side by side in it, and an export in another format must not silently replace a date
 * published in the first. Before any job starts, every partition the run would write is checked against
 * its published manifest; another format refuses the run (CONFIG_FORMAT_CONFLICT, exit 78), nothing
 * written. Exporting the same date again in the same format still replaces it (the normal rerun).
 */
import { ChatportError } from '../../shared/errors.js';
import type { Destination, OutputFormat, Partition } from '../../sinks/index.js';

export async function refuseOtherFormat(destination: Destination, partitions: readonly Partition[], format: OutputFormat): Promise<void> {
  for (const partition of partitions) {
    const text = await destination.readManifest(partition);
    if (text === undefined) continue;
    const published = JSON.parse(text) as { format?: string; runId?: string };
    if (published.format === format) continue;
    const where = `${destination.root}/${partition.dataset}/dt=${partition.date}`;
    throw new ChatportError(
      `${where} already holds ${published.format ?? 'another format'} output (run ${published.runId ?? 'unknown'}); a ${format} export would replace it. ` +
        `A table holds one format: export ${format} to another --to (e.g. ${destination.root}/${format}), or delete that date's output first`,
      { code: 'CONFIG_FORMAT_CONFLICT', details: { ...partition, root: destination.root, published: published.format ?? null, requested: format } },
    );
  }
}
