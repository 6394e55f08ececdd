/**
 * A local directory. A run writes aside under `<root>/_staging/<dataset>/dt=D/<run>/` (same file system, so
 * renames are atomic), then publishes in an order that keeps what a loader trusts true after every step,
 * as the S3 backend does (a kill -9 can stop it between any two steps):
 *   1. data files and the manifest are written and flushed in the staging folder; the manifest renamed to
 *      `commit.json` there is the point of no return: from then on the publication is finished, by this run
 *      or (killed) by the next run of the date in its format (`finishInterrupted`), never undone;
 *   2. the date's `_SUCCESS` is removed: readers now ignore the date;
 *   3. the published manifest is moved aside, then the published data folder: the date has no manifest
 *      naming files that are not there, and a reader that globs the files sees the old ones or none;
 *   4. the staged data folder is renamed into place: the new files appear together, never beside old ones;
 *   5. the new manifest is renamed into place;
 *   6. `_SUCCESS` is written (aside, renamed) and the staging (with the old output) removed.
 * A crash before step 1 leaves the previous output whole (and leftovers under `_staging`, removed by the
 * next run of the date). One writer per dataset and date at a time (the CronJob uses concurrencyPolicy
 * Forbid): a run whose staging folder another run of the date cleared stops with OUTPUT_CONCURRENT_WRITE.
 */
import { createWriteStream } from 'node:fs';
import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { ChatportError } from '../shared/errors.js';
import { ExitCode, exitCodeFor, isSystemError } from '../shared/exit-codes.js';
import { concurrentWriteError, type Destination, type FinishOutcome, type Publication, type PublishedUrls } from './destination.js';
import { STAGING_FOLDER, SUCCESS_MARKER, dataFileName, dataFolder, dateOfFolder, manifestPath, validatePartition, validateRunId, type Partition } from './layout.js';
import { readTextIfExists } from '../shared/read-if-exists.js';

/** In a run's staging folder: a publication past its point of no return (CommitRecord). */
const COMMIT_RECORD = 'commit.json';
/** Where earlier releases moved a date's published folder while they put the new one in its place. */
const PREVIOUS_FOLDER = 'previous';
/** The published manifest, moved aside while the data folders are swapped. */
const PREVIOUS_MANIFEST = 'previous-manifest.json';

interface CommitRecord {
  /** The run's data files, in the staging folder until moved into the data folder. */
  files: string[];
  manifest: string;
}

function formatOf(manifestJson: string): unknown {
  try {
    return (JSON.parse(manifestJson) as { format?: unknown }).format;
  } catch {
    return undefined;
  }
}

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
  const pathsOf = (partition: Partition) => ({
    finalData: join(root, dataFolder(partition)),
    finalManifest: join(root, manifestPath(partition)),
    stagingForDate: join(root, STAGING_FOLDER, dataFolder(partition)),
  });

  /**
   * Steps 2–6 from a run's commit record; each step can be done again, so a killed finish is finished by the
   * next. The date's data folder goes away whole and comes back whole, its manifest away first and back
   * last: a reader that globs the files never sees old and new ones together, and a manifest never names
   * files that are not there.
   */
  async function finishCommitted(partition: Partition, staging: string, record: CommitRecord): Promise<void> {
    const { finalData, finalManifest, stagingForDate } = pathsOf(partition);
    const stagedData = join(staging, 'data');
    await rm(join(finalData, SUCCESS_MARKER), { force: true });
    if (!(await isGone(stagedData))) {
      await renameIfExists(finalManifest, join(staging, PREVIOUS_MANIFEST));
      // Moved aside already when a killed finish got that far (the date then has no data folder).
      if (await isGone(join(staging, PREVIOUS_FOLDER))) await renameIfExists(finalData, join(staging, PREVIOUS_FOLDER));
      await mkdir(dirname(finalData), { recursive: true });
      await rename(stagedData, finalData);
    } else {
      for (const name of record.files) if (await isGone(join(finalData, name))) throw new Error(`${name}, a file of the publication, is neither staged nor in ${finalData}`);
    }
    const stagedManifest = join(staging, 'manifest.json');
    await writeDurably(stagedManifest, record.manifest);
    await mkdir(dirname(finalManifest), { recursive: true });
    await rename(stagedManifest, finalManifest);
    const stagedMarker = join(staging, SUCCESS_MARKER);
    await writeDurably(stagedMarker, '');
    await rename(stagedMarker, join(finalData, SUCCESS_MARKER));
    await rm(stagingForDate, { recursive: true, force: true });
  }

  async function beginPublication(partitionIn: Partition, runIdIn: string): Promise<Publication> {
    const partition = validatePartition(partitionIn);
    const runId = validateRunId(runIdIn);
    const { finalData, stagingForDate } = pathsOf(partition);
    const staging = join(stagingForDate, runId);
    const stagedData = join(staging, 'data');
    // Leftovers of crashed runs of this date (one writer per date at a time).
    await rm(stagingForDate, { recursive: true, force: true });
    await mkdir(stagedData, { recursive: true });
    let state: 'open' | 'committed' | 'aborted' = 'open';
    const written: string[] = [];

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
        written.push(name);
        try {
          await pipeline(body, createWriteStream(join(stagedData, name), { flush: true }));
        } catch (error) {
          throw (await clearedByOtherRun(error, staging, finalData)) ?? error;
        }
      },

      async commit(manifestJson: string): Promise<PublishedUrls> {
        if (state !== 'open') throw new Error(`publication already ${state}`);
        let step = 'writing the manifest';
        try {
          const record: CommitRecord = { files: written, manifest: manifestJson };
          // Written whole aside (the name a manifest has there), then renamed: a kill leaves it whole or absent.
          const aside = join(staging, 'manifest.json');
          await writeDurably(aside, JSON.stringify(record));
          await rename(aside, join(staging, COMMIT_RECORD));
          state = 'committed';
          step = 'moving the data files and the manifest into place';
          await finishCommitted(partition, staging, record);
        } catch (error) {
          throw (await clearedByOtherRun(error, staging, finalData)) ?? wrap(step, error);
        }
        return { manifestUrl: pathToFileURL(pathsOf(partition).finalManifest).href, successUrl: pathToFileURL(join(finalData, SUCCESS_MARKER)).href };
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

  async function isMarked(partition: Partition): Promise<boolean> {
    return !(await isGone(join(pathsOf(validatePartition(partition)).finalData, SUCCESS_MARKER)));
  }

  async function finishInterrupted(partitionIn: Partition, format: string): Promise<FinishOutcome> {
    const partition = validatePartition(partitionIn);
    const { stagingForDate, finalData } = pathsOf(partition);
    for (const run of await readdir(stagingForDate).catch(() => [] as string[])) {
      const staging = join(stagingForDate, run);
      try {
        const text = await readTextIfExists(join(staging, COMMIT_RECORD));
        const record = text === undefined ? undefined : (JSON.parse(text) as CommitRecord);
        // Releases before the commit record moved the published folder aside here before putting the new
        // one in its place: one killed in between left the date without its folder, its manifest naming these files.
        if (record === undefined && (await isGone(finalData)) && (await renameIfExists(join(staging, PREVIOUS_FOLDER), finalData))) return 'finished';
        // A publication of another format is not finished: the run that asks will replace the date.
        if (record === undefined || formatOf(record.manifest) !== format) continue;
        await finishCommitted(partition, staging, record);
        return 'finished';
      } catch (error) {
        if (isDiskFailure(error)) throw error;
        // A file of it lost (or the record unreadable): whatever step it stopped at, the date's manifest
        // names files in place (each step keeps that true), so the run that asked replaces the date.
        await rm(staging, { recursive: true, force: true }).catch((rmError: unknown) => {
          throw new ChatportError(`the publication of ${dataFolder(partition)} a killed run left in ${staging} cannot be finished, nor removed; delete that folder, then run again`, {
            code: 'OUTPUT_WRITE_FAILED', transient: false, details: { root, dataset: partition.dataset, date: partition.date, staging }, cause: rmError,
          });
        });
        return 'discarded';
      }
    }
    return 'none';
  }

  async function unmarkedDates(datasetIn: string): Promise<string[]> {
    const { dataset } = validatePartition({ dataset: datasetIn, date: '2000-01-01' });
    const dates = new Set<string>();
    const folders = (path: string) => readdir(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [] as string[];
      throw error;
    });
    for (const name of await folders(join(root, dataset))) {
      const date = dateOfFolder(name);
      if (date !== undefined && (await isGone(join(root, dataset, name, SUCCESS_MARKER)))) dates.add(date);
    }
    // Past its commit record a publication is the date's, whatever its folder holds now.
    for (const name of await folders(join(root, STAGING_FOLDER, dataset))) {
      const date = dateOfFolder(name);
      if (date === undefined) continue;
      for (const run of await folders(join(root, STAGING_FOLDER, dataset, name))) if (!(await isGone(join(root, STAGING_FOLDER, dataset, name, run, COMMIT_RECORD)))) dates.add(date);
    }
    return [...dates].sort();
  }

  return { root, beginPublication, readManifest, isMarked, finishInterrupted, unmarkedDates };
}
