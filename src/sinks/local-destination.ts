/**
 * A local directory. Output is written aside under `<root>/_staging/…` (same file system, so renames are
 * atomic), then published with renames:
 *   1. data files and the manifest are written and flushed to disk in the staging folder;
 *   2. the old `<dataset>/dt=D` folder is renamed away, the staged folder renamed into its place (the new
 *      files appear together; a reader between the two renames sees no date, never a mixture);
 *   3. the manifest is renamed over the old one;
 *   4. `_SUCCESS` is written (aside, then renamed) last; then the old folder is deleted.
 * A crash leaves at worst an unmarked date and leftovers under `_staging`, removed by the next run of that
 * dataset and date. One writer per dataset and date at a time (the CronJob uses concurrencyPolicy Forbid):
 * a run whose staging folder another run of the date cleared stops with OUTPUT_CONCURRENT_WRITE (retryable).
 */
import { createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { ChatportError } from '../shared/errors.js';
import { ExitCode, exitCodeFor, isSystemError } from '../shared/exit-codes.js';
import { concurrentWriteError, type Destination, type Publication, type PublishedUrls } from './destination.js';
import { STAGING_FOLDER, SUCCESS_MARKER, dataFileName, dataFolder, manifestPath, validatePartition, validateRunId, type Partition } from './layout.js';
import { readTextIfExists } from '../shared/read-if-exists.js';

async function writeDurably(path: string, text: string): Promise<void> {
  await writeFile(path, text, { flush: true });
}

async function renameIfExists(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function isDiskFailure(error: unknown): boolean {
  return isSystemError(error) && exitCodeFor(error) === ExitCode.IO_ERROR;
}

async function isGone(path: string): Promise<boolean> {
  return access(path).then(() => false, () => true);
}

/** A missing-file error while the run's own staging folder is gone: another run of the date cleared it. */
async function clearedByOtherRun(error: unknown, staging: string, folder: string): Promise<Error | undefined> {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !(await isGone(staging))) return undefined;
  return concurrentWriteError(folder, `this run's staging folder ${staging} was removed (a run clears its date's staging when it starts)`, { staging });
}

export function createLocalDestination(rootDir: string): Destination {
  const root = resolve(rootDir);
  const fileUrl = (relative: string) => pathToFileURL(join(root, relative)).href;

  async function beginPublication(partitionIn: Partition, runIdIn: string): Promise<Publication> {
    const partition = validatePartition(partitionIn);
    const runId = validateRunId(runIdIn);
    const finalData = join(root, dataFolder(partition));
    const finalManifest = join(root, manifestPath(partition));
    const stagingForDate = join(root, STAGING_FOLDER, dataFolder(partition));
    const staging = join(stagingForDate, runId);
    const stagedData = join(staging, 'data');
    // Leftovers of crashed runs of this date (one writer per date at a time).
    await rm(stagingForDate, { recursive: true, force: true });
    await mkdir(stagedData, { recursive: true });
    let state: 'open' | 'committed' | 'aborted' = 'open';

    const wrap = (step: string, error: unknown) =>
      // A full or failing disk is that (74, as for a data file), not a folder that cannot be written (73).
      isDiskFailure(error) ? error : new ChatportError(`publishing ${dataFolder(partition)} to ${root} failed while ${step}`, {
        code: 'OUTPUT_WRITE_FAILED',
        transient: false,
        details: { root, dataset: partition.dataset, date: partition.date, step },
        cause: error,
      });

    return {
      dataUrl: `${fileUrl(dataFolder(partition))}/`,
      urlOf: (name) => fileUrl(`${dataFolder(partition)}/${name}`),
      dataFileName: (sequence, extension) => dataFileName(runId, sequence, extension),

      async writeDataFile(name: string, body: Readable): Promise<void> {
        // `flush` fsyncs before close, so a renamed file is on disk, not only in the page cache.
        try {
          await pipeline(body, createWriteStream(join(stagedData, name), { flush: true }));
        } catch (error) {
          throw (await clearedByOtherRun(error, staging, finalData)) ?? error;
        }
      },

      async commit(manifestJson: string): Promise<PublishedUrls> {
        if (state !== 'open') throw new Error(`publication already ${state}`);
        const stagedManifest = join(staging, 'manifest.json');
        const old = join(staging, 'previous');
        let step = 'writing the manifest';
        try {
          await writeDurably(stagedManifest, manifestJson);
          step = 'moving the data folder into place';
          await mkdir(dirname(finalData), { recursive: true });
          const hadOld = await renameIfExists(finalData, old);
          try {
            await rename(stagedData, finalData);
          } catch (error) {
            if (hadOld) await rename(old, finalData);
            throw error;
          }
          state = 'committed';
          step = 'moving the manifest into place';
          await mkdir(dirname(finalManifest), { recursive: true });
          await rename(stagedManifest, finalManifest);
          step = 'writing _SUCCESS';
          const stagedMarker = join(staging, SUCCESS_MARKER);
          await writeDurably(stagedMarker, '');
          await rename(stagedMarker, join(finalData, SUCCESS_MARKER));
          step = 'removing the previous output';
          await rm(stagingForDate, { recursive: true, force: true });
        } catch (error) {
          throw (await clearedByOtherRun(error, staging, finalData)) ?? wrap(step, error);
        }
        return { manifestUrl: pathToFileURL(finalManifest).href, successUrl: pathToFileURL(join(finalData, SUCCESS_MARKER)).href };
      },

      async abort(): Promise<void> {
        if (state === 'committed') return;
        state = 'aborted';
        await rm(staging, { recursive: true, force: true });
      },
    };
  }

  async function readManifest(partition: Partition): Promise<string | undefined> {
    return readTextIfExists(join(root, manifestPath(validatePartition(partition))));
  }

  return { root, beginPublication, readManifest };
}
