/**
 * The rejects of one dataset and date: NDJSON, one line per row that could not be typed, with where it
 * came from, every reason and the record as read. The file is opened on the first reject only, so a
 * clean run leaves no empty files behind. It lives outside the data folder (engines that scan a table's
 * prefix would read it as data): `<rejectsDir>/<dataset>/dt=<date>/rejects-<runId>.ndjson`.
 *
 * Like the date's output, the date's rejects are replaced, not added to: a run writes them aside under
 * `<rejectsDir>/_staging/<dataset>/dt=<date>/` and moves them into place, removing the date's older
 * rejects files, only once the dataset is published. A failed run leaves its rejects aside (its error
 * names them) and the published ones as they were; the next run of that date clears what was aside.
 * A window of several days keeps its rejects in one file, in its last day's folder, and replaces the
 * rejects of every day it publishes: a day's older rejects would name rows of output that is gone.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import type { RecordPosition } from '../../formats/index.js';
import type { RejectReason } from './column-plan.js';

export interface RejectLine {
  dataset: string;
  date: string;
  runId: string;
  /** The export (named by its job, never by its pre-signed URL). */
  file: string;
  line?: number;
  /** 0-based record number in the export. */
  index: number;
  /** `unparseable`: the format could not read the record; `untyped`: a value did not fit its column. */
  kind: 'unparseable' | 'untyped';
  reasons: Array<RejectReason | { message: string; expected: string }>;
  record: unknown;
}

/** Dataset names never start with `_`, so this folder clashes with none. */
const REJECTS_STAGING = '_staging';
const REJECTS_NAME = /^rejects-.+\.ndjson$/;

export interface RejectsPaths {
  /** Where the run writes them. */
  staged: string;
  /** Where they are once the dataset is published. */
  published: string;
  /** The staging and published folders of every date the run publishes (the file's own date last). */
  dates: Array<{ staged: string; published: string }>;
}

/** The rejects of a run publishing `dates` of a dataset: one file, named for the last date. */
export function rejectsPathFor(rejectsDir: string, dataset: string, dates: readonly string[], runId: string): RejectsPaths {
  const name = `rejects-${runId}.ndjson`;
  const folders = dates.map((date) => ({ staged: join(rejectsDir, REJECTS_STAGING, dataset, `dt=${date}`), published: join(rejectsDir, dataset, `dt=${date}`) }));
  const own = folders.at(-1)!;
  return { staged: join(own.staged, name), published: join(own.published, name), dates: folders };
}

export class RejectsFile {
  count = 0;
  private stream: WriteStream | undefined;
  /** Where the lines are being written (named in errors of a failed run). */
  readonly path: string;
  readonly publishedPath: string;
  private readonly dates: RejectsPaths['dates'];

  constructor(paths: RejectsPaths) {
    this.path = paths.staged;
    this.publishedPath = paths.published;
    this.dates = paths.dates;
  }

  /** Removes what earlier failed runs of this dataset's dates left aside (one writer per date at a time). */
  async discardLeftovers(): Promise<void> {
    for (const folder of this.dates) await rm(folder.staged, { recursive: true, force: true });
  }

  /**
   * Call once the dataset is published: this run's rejects (if any) replace the date's published ones.
   * Returns the published path when anything was rejected.
   */
  async publish(): Promise<string | undefined> {
    const written = await this.close();
    if (written) await this.replacing(dirname(this.publishedPath), async (folder) => {
      await mkdir(folder, { recursive: true });
      await rename(written, this.publishedPath);
    });
    for (const { published } of this.dates) await this.replacing(published, (folder) => removeOlderRejects(folder, basename(this.publishedPath)));
    return written ? this.publishedPath : undefined;
  }

  private async replacing(folder: string, step: (folder: string) => Promise<void>): Promise<void> {
    try {
      await step(folder);
    } catch (error) {
      throw new ChatportError(`replacing the rejects in ${folder} failed (the data is published)`, { code: 'OUTPUT_WRITE_FAILED', details: { folder }, cause: error });
    }
  }

  async write(line: RejectLine): Promise<void> {
    if (!this.stream) {
      await mkdir(dirname(this.path), { recursive: true });
      this.stream = createWriteStream(this.path, { flags: 'w' });
    }
    this.count++;
    if (!this.stream.write(`${JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`)) await once(this.stream, 'drain');
  }

  /** The path when anything was written, else undefined. */
  async close(): Promise<string | undefined> {
    const stream = this.stream;
    if (!stream) return undefined;
    this.stream = undefined;
    await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return this.path;
  }
}

/** Removes a date's rejects files other than `kept`, and the folder when that leaves it empty. */
async function removeOlderRejects(folder: string, kept: string): Promise<void> {
  const older = (await readdir(folder).catch(ifMissing([]))).filter((name) => REJECTS_NAME.test(name) && name !== kept);
  for (const name of older) await rm(join(folder, name), { force: true });
  await rmdir(folder).catch(ifMissing(undefined, 'ENOTEMPTY'));
}

export function positionOf(position: RecordPosition): Pick<RejectLine, 'file' | 'line' | 'index'> {
  return position.line === undefined ? { file: position.file, index: position.index } : { file: position.file, line: position.line, index: position.index };
}

/** A catch handler giving `value` for a missing path (or the other given codes) and rethrowing the rest. */
function ifMissing<T>(value: T, ...codes: string[]): (error: unknown) => T {
  return (error) => {
    if ([...codes, 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) return value;
    throw error;
  };
}
