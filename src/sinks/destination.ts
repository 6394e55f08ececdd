/**
 * Where export output goes. One interface, one file per backend (local directory, S3).
 *
 * A publication replaces the output of one dataset and date as a whole: until `commit` nothing a reader
 * trusts changes; after it the date holds exactly the files of this run, its manifest, and `_SUCCESS`,
 * written last. `abort` discards what this run wrote and leaves the previous output as it was, as far as
 * the backend allows (see each backend).
 */
import type { Readable } from 'node:stream';
import { ChatportError } from '../shared/errors.js';
import type { Partition } from './layout.js';

/**
 * Another run publishes the same dataset and date at the same time (`seen`: what gave it away). Retryable:
 * once the other run has ended, a rerun publishes the date whole.
 */
export function concurrentWriteError(folder: string, seen: string, details: Record<string, unknown> = {}): ChatportError {
  return new ChatportError(`another run is writing ${folder} at the same time: ${seen}; run one export per dataset and date at a time`, {
    code: 'OUTPUT_CONCURRENT_WRITE',
    transient: true,
    details: { folder, ...details },
  });
}

/** What `finishInterrupted` did. */
export type FinishOutcome = 'finished' | 'discarded' | 'none';

export interface PublishedUrls {
  manifestUrl: string;
  successUrl: string;
}

export interface Publication {
  /** URL of the data folder once published (`file:///…` or `s3://…`). */
  readonly dataUrl: string;
  /** URL of a data file once published. */
  urlOf(fileName: string): string;
  /** The name of data file `sequence` (layout.ts dataFileName; S3 adds this attempt's tag). */
  dataFileName(sequence: number, extension: string): string;
  /** Stores one data file, reading `body` to its end. */
  writeDataFile(fileName: string, body: Readable, contentType: string): Promise<void>;
  /** Makes the data files visible, writes the manifest, removes the date's older files, writes `_SUCCESS`. */
  commit(manifestJson: string): Promise<PublishedUrls>;
  /** Discards this run's files. Safe to call after a failed `writeDataFile` or `commit`. */
  abort(): Promise<void>;
}

/**
 * Files kept in the store beside the output but outside its data and manifest folders (an S3 export's
 * rejects, `_rejects/…`), so they outlive the machine that ran the export. Paths are relative to the root.
 */
export interface SideFiles {
  urlOf(relative: string): string;
  /** Stores the local file at `relative` (streamed; every part's MD5 checked by the store). */
  upload(relative: string, localPath: string, contentType: string): Promise<void>;
  /** The names of the files directly in folder `relative`. */
  list(relativeFolder: string): Promise<string[]>;
  remove(relatives: readonly string[]): Promise<void>;
}

export interface Destination {
  /** The root as the user gave it, e.g. `/data/out` or `s3://bucket/prefix`. */
  readonly root: string;
  beginPublication(partition: Partition, runId: string): Promise<Publication>;
  /** The published manifest of a dataset and date, as text; undefined when that date holds none. */
  readManifest(partition: Partition): Promise<string | undefined>;
  /** Whether the date holds `_SUCCESS`: its manifest describes a finished publication. */
  isMarked(partition: Partition): Promise<boolean>;
  /**
   * Finishes a publication in `format` that a run killed outright (SIGKILL, OOM) left half done, so the date
   * is whole again with `_SUCCESS` (locally: a publication past its point of no return; on S3: a date
   * without `_SUCCESS` whose manifest's files are all there, their sizes as it says). `discarded`: what it
   * left could not be finished (a file of it lost) and was removed, so the date is left to the run to replace.
   */
  finishInterrupted(partition: Partition, format: string): Promise<FinishOutcome>;
  /**
   * The dates of `dataset` whose data folder holds files but no `_SUCCESS` (locally also a publication past
   * its point of no return): a run killed while publishing them, or one publishing them now. Oldest first.
   */
  unmarkedDates(dataset: string): Promise<string[]>;
  /** S3 only: side files in the store (a local destination's rejects are plain files under it). */
  readonly sideFiles?: SideFiles;
}
