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
 * A window of several days writes one file per day, in that day's folder, so that a later run of one of its
 * days replaces that day's rejects only; its rejects with no readable day (an unparseable record, a
 * missing or bad created_time) go to `undated-<runId>.ndjson` in its last day's folder, which runs of one
 * day leave alone (those rows belong to none of their days) and the next window over that day replaces.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ChatportError, isChatportError } from '../../shared/errors.js';
import type { SideFiles } from '../../sinks/index.js';
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
/** What a run of one partition replaces in its date's folder. */
const DAY_REJECTS = /^rejects-.+\.ndjson$/;
/** What a window replaces in each of its days' folders: the days' rejects and earlier windows' undated ones. */
const WINDOW_REJECTS = /^(rejects|undated)-.+\.ndjson$/;

export interface RejectsPaths {
  /**
   * The staging and published folders of every date the run publishes, oldest first. With `remote`,
   * `published` is the folder's URL in the store and `remoteFolder` its path under the root.
   */
  dates: Array<{ date: string; staged: string; published: string; remoteFolder?: string; remoteStaging?: string }>;
  runId: string;
  /** An S3 export's rejects go into its store (`<to>/_rejects/…`); the local folder only stages them. */
  remote?: SideFiles;
}

/**
 * The folders of the rejects of a run publishing `dates` of a dataset: under `rejectsDir`, or, with
 * `remote`, staged under `rejectsDir` and published under `_rejects/` in the store.
 */
export function rejectsPathFor(rejectsDir: string, dataset: string, dates: readonly string[], runId: string, remote?: SideFiles): RejectsPaths {
  return {
    dates: dates.map((date) => {
      const staged = join(rejectsDir, REJECTS_STAGING, dataset, `dt=${date}`);
      if (!remote) return { date, staged, published: join(rejectsDir, dataset, `dt=${date}`) };
      const remoteFolder = `${REMOTE_REJECTS}/${dataset}/dt=${date}`;
      return { date, staged, published: remote.urlOf(remoteFolder), remoteFolder, remoteStaging: `${REMOTE_REJECTS}/${REJECTS_STAGING}/${dataset}/dt=${date}` };
    }),
    runId,
    ...(remote ? { remote } : {}),
  };
}

/** The folder of an S3 export's rejects under its root, beside the datasets and `_manifests`. */
export const REMOTE_REJECTS = '_rejects';

/** One file of rejects: written aside, moved into place (or uploaded, `remoteKey`) once the dataset is published. */
class RejectsSink {
  count = 0;
  uploaded = false;
  private stream: WriteStream | undefined;

  constructor(
    readonly staged: string,
    readonly published: string,
    readonly remoteKey?: string,
  ) {}

  async write(text: string): Promise<void> {
    if (!this.stream) {
      await mkdir(dirname(this.staged), { recursive: true });
      this.stream = createWriteStream(this.staged, { flags: 'w' });
    }
    this.count++;
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  /** True when anything was written. */
  async close(): Promise<boolean> {
    const stream = this.stream;
    if (!stream) return this.count > 0;
    this.stream = undefined;
    await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return true;
  }
}

/**
 * The rejects of one dataset. A run of one partition writes every reject to one file; a window of several
 * days writes each to its day's file, or to the undated file when it has no day.
 */
export class RejectsFile {
  private readonly dates: RejectsPaths['dates'];
  private readonly days = new Map<string, RejectsSink>();
  private readonly undated: RejectsSink;
  private readonly publishedDays = new Set<string>();
  private last: RejectsSink;

  private readonly remote: SideFiles | undefined;

  constructor(paths: RejectsPaths) {
    this.dates = paths.dates;
    this.remote = paths.remote;
    // In the store each attempt's files get a tag of their own: a retry keeps its run id, and must not
    // write over the rejects a published manifest names (S3 has no rename to publish them by).
    const tag = paths.remote ? `-${randomBytes(4).toString('hex')}` : '';
    const sink = (d: RejectsPaths['dates'][number], stem: string) => {
      const staged = join(d.staged, `${stem}-${paths.runId}.ndjson`);
      if (d.remoteFolder === undefined) return new RejectsSink(staged, join(d.published, `${stem}-${paths.runId}.ndjson`));
      const name = `${stem}-${paths.runId}${tag}.ndjson`;
      return new RejectsSink(staged, `${d.published}/${name}`, `${d.remoteFolder}/${name}`);
    };
    for (const d of paths.dates) this.days.set(d.date, sink(d, 'rejects'));
    const own = paths.dates.at(-1)!;
    this.undated = this.isWindow ? sink(own, 'undated') : this.days.get(own.date)!;
    this.last = this.undated;
  }

  /** Several days, each with its own rejects. */
  get isWindow(): boolean {
    return this.dates.length > 1;
  }

  get count(): number {
    return this.sinks().reduce((sum, s) => sum + s.count, 0);
  }

  /** The file the latest reject went to, as being written (named in errors of a failed run). */
  get path(): string {
    return this.last.staged;
  }

  /** The files written so far, as being written. */
  get stagedPaths(): string[] {
    return this.sinks().filter((s) => s.count > 0).map((s) => s.staged);
  }

  /** Rejects placed in `date` (all of them for a run of one partition). */
  countOf(date: string): number {
    return this.days.get(date)?.count ?? 0;
  }

  /** Where `date`'s rejects are once published; null when it has none. */
  publishedPathOf(date: string): string | null {
    const sink = this.days.get(date);
    return sink && sink.count > 0 ? sink.published : null;
  }

  /** Where a window's rejects without a day are once published; null when it has none or is one partition. */
  get undatedPublishedPath(): string | null {
    return this.isWindow && this.undated.count > 0 ? this.undated.published : null;
  }

  /** Removes what earlier failed runs of this dataset's dates left aside (one writer per date at a time). */
  async discardLeftovers(): Promise<void> {
    for (const folder of this.dates) {
      await rm(folder.staged, { recursive: true, force: true });
      if (this.remote && folder.remoteStaging) await this.remote.remove((await this.remote.list(folder.remoteStaging)).map((name) => `${folder.remoteStaging!}/${name}`));
    }
  }

  /**
   * In the store (S3), after a failure: the rejects of the days not published are kept aside there
   * (`_rejects/_staging/<dataset>/dt=<date>/`, until the next run of the date), since the machine that ran
   * may be gone when someone looks (a pod's temp folder); what went up for them beside the published
   * rejects is removed. Returns the URLs of the files kept aside.
   */
  async keepAsideInStore(): Promise<string[]> {
    if (!this.remote) return [];
    await this.discardUnpublished();
    const kept: string[] = [];
    for (const d of this.dates) {
      if (this.publishedDays.has(d.date)) continue;
      for (const sink of this.sinksOf(d.date)) {
        if (!(await sink.close())) continue;
        const key = `${d.remoteStaging!}/${basename(sink.remoteKey!)}`;
        await this.remote.upload(key, sink.staged, 'application/x-ndjson');
        kept.push(this.remote.urlOf(key));
      }
    }
    return kept;
  }

  /**
   * Call once `date` is published: this run's rejects of that day (and, on a window's last day, its undated
   * ones) replace the day's published ones. A window publishes day by day, so a day published before a
   * later one fails has its rejects in place, as its manifest says.
   */
  async publishDay(date: string): Promise<void> {
    const folder = this.dates.find((d) => d.date === date);
    if (!folder || this.publishedDays.has(date)) return;
    this.publishedDays.add(date);
    const sinks = this.sinksOf(date);
    if (this.remote) return this.replaceRemote(this.remote, folder, sinks);
    const kept = new Set<string>();
    for (const sink of sinks) {
      if (!(await sink.close())) continue;
      kept.add(basename(sink.published));
      await this.replacing(dirname(sink.published), async (dir) => {
        await mkdir(dir, { recursive: true });
        await rename(sink.staged, sink.published);
      });
    }
    await this.replacing(folder.published, (dir) => removeOlderRejects(dir, this.isWindow ? WINDOW_REJECTS : DAY_REJECTS, kept));
  }

  /**
   * Call once the dataset is published: the rejects of every day not yet published replace the published
   * ones. Returns the published path of the run of one partition when anything was rejected.
   */
  async publish(): Promise<string | undefined> {
    for (const { date } of this.dates) await this.publishDay(date);
    return this.isWindow ? undefined : (this.publishedPathOf(this.dates[0]!.date) ?? undefined);
  }

  /**
   * In the store (S3), before `date`'s manifest is written: its rejects are uploaded, so the manifest names
   * only files that are there, and a machine lost after the publication loses none of them.
   */
  async uploadDay(date: string): Promise<void> {
    if (!this.remote) return;
    for (const sink of this.sinksOf(date)) {
      if (sink.uploaded || !(await sink.close())) continue;
      await this.remote.upload(sink.remoteKey!, sink.staged, 'application/x-ndjson');
      sink.uploaded = true;
    }
  }

  /** In the store: removes the rejects uploaded for days that were not published (named by no manifest). */
  async discardUnpublished(): Promise<void> {
    if (!this.remote) return;
    const keys = this.sinks().filter((s) => s.uploaded && !this.dates.some((d) => this.publishedDays.has(d.date) && this.sinksOf(d.date).includes(s))).map((s) => s.remoteKey!);
    if (keys.length > 0) await this.remote.remove(keys);
  }

  private sinksOf(date: string): RejectsSink[] {
    return [this.days.get(date)!, ...(this.isWindow && date === this.dates.at(-1)!.date ? [this.undated] : [])];
  }

  /** After `folder`'s date is published in the store: its older rejects go, and the local copies too. */
  private async replaceRemote(remote: SideFiles, folder: RejectsPaths['dates'][number], sinks: RejectsSink[]): Promise<void> {
    try {
      await this.uploadDay(folder.date);
      const kept = new Set(sinks.filter((s) => s.uploaded).map((s) => basename(s.remoteKey!)));
      const replaced = this.isWindow ? WINDOW_REJECTS : DAY_REJECTS;
      const older = (await remote.list(folder.remoteFolder!)).filter((name) => replaced.test(name) && !kept.has(name));
      await remote.remove(older.map((name) => `${folder.remoteFolder!}/${name}`));
    } catch (error) {
      throw new ChatportError(`replacing the rejects in ${folder.published} failed (the data is published)${isChatportError(error) ? `: ${error.message}` : ''}`, {
        code: isChatportError(error) && error.code.startsWith('OUTPUT_') ? error.code : 'OUTPUT_WRITE_FAILED', details: { folder: folder.published }, cause: error,
      });
    }
    for (const sink of sinks) await rm(sink.staged, { force: true });
  }

  private sinks(): RejectsSink[] {
    const days = [...this.days.values()];
    return this.isWindow ? [...days, this.undated] : days;
  }

  private async replacing(folder: string, step: (folder: string) => Promise<void>): Promise<void> {
    try {
      await step(folder);
    } catch (error) {
      throw new ChatportError(`replacing the rejects in ${folder} failed (the data is published)`, { code: 'OUTPUT_WRITE_FAILED', details: { folder }, cause: error });
    }
  }

  /** Writes a reject to its day's file (`day` undefined: no readable day). */
  async write(line: RejectLine, day?: string): Promise<void> {
    const sink = (this.isWindow && day !== undefined ? this.days.get(day) : undefined) ?? this.undated;
    this.last = sink;
    await sink.write(`${JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
  }

  /** Ends every file being written. */
  async close(): Promise<void> {
    for (const sink of this.sinks()) await sink.close();
  }
}

/**
 * A run killed between publishing a date's data and moving that date's rejects into place left them aside
 * while its manifest names them (`published`): they are moved into place now, replacing the date's older
 * rejects as the killed run would have (but those in `named`, the names its manifest gives). Nothing
 * happens when the file is in place or nothing is aside.
 */
export async function finishKilledRunRejects(published: string, window: boolean, named: ReadonlySet<string>): Promise<boolean> {
  const day = dirname(published);
  const staged = join(dirname(dirname(dirname(published))), REJECTS_STAGING, basename(dirname(day)), basename(day), basename(published));
  const present = async (path: string) => readdir(dirname(path)).then((names) => names.includes(basename(path)), ifMissing(false));
  if ((await present(published)) || !(await present(staged))) return false;
  try {
    await mkdir(day, { recursive: true });
    await rename(staged, published);
    await removeOlderRejects(day, window ? WINDOW_REJECTS : DAY_REJECTS, named);
  } catch (error) {
    throw new ChatportError(`moving the rejects ${staged} a killed run left aside to ${published} failed`, { code: 'OUTPUT_WRITE_FAILED', details: { staged, published }, cause: error });
  }
  return true;
}

/** Removes a date's rejects files matching `replaced` other than `kept`, and the folder when that leaves it empty. */
async function removeOlderRejects(folder: string, replaced: RegExp, kept: ReadonlySet<string>): Promise<void> {
  const older = (await readdir(folder).catch(ifMissing([]))).filter((name) => replaced.test(name) && !kept.has(name));
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
