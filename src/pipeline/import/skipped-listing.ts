import { rm, stat } from 'node:fs/promises';
import type { RecordPosition, Skipped } from '../../transform/index.js';
import type { StageName } from '../state/events.js';
import type { RunPaths } from '../state/run-paths.js';
import { RejectsWriter } from './rejects-writer.js';

/** One line of the run folder's skipped/<stage>.ndjson: a record left out on purpose, and why. */
export interface SkippedLine {
  stage: StageName;
  file: string;
  line?: number;
  index: number;
  /** Index of the rule in the stage's `skip` list; -1 for a built-in one (an empty row, a Slack edit event, …). */
  rule: number;
  because: string;
  /** The record as the source holds it, when the reader keeps it (as rejects.ndjson carries it). */
  record?: unknown;
}

/**
 * The stage's skipped records, listed as they are read. Like the rejects and duplicates files, the file is
 * written anew by every read of the stage's input (first attempt or resume), so none is listed twice: an
 * earlier attempt's file is removed when the read starts, and the file is made at the first skip, so a
 * stage without one has none. A trial's cut is not listed (it would be most of the input): the report says
 * what the trial took.
 */
export class SkippedListing {
  private writer: RejectsWriter<SkippedLine> | undefined;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly stage: StageName,
    private readonly path: string,
  ) {}

  /** Before the stage's input is read: what an earlier read listed is gone. */
  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }

  async list(skipped: Skipped): Promise<void> {
    this.writer ??= await RejectsWriter.open<SkippedLine>(this.path);
    await this.writer.write(skippedLineOf(this.stage, skipped.position, skipped));
  }

  /** Every line in the file: before the stage's end is journaled, so a resume that trusts that end finds them all. */
  close(): Promise<void> {
    this.closed ??= this.writer?.close() ?? Promise.resolve();
    return this.closed;
  }
}

function skippedLineOf(stage: StageName, position: RecordPosition, { rule, because, raw }: Skipped): SkippedLine {
  const line: SkippedLine = { stage, file: position.file, index: position.index, rule, because };
  if (position.line !== undefined) line.line = position.line;
  if (raw !== undefined) line.record = raw;
  return line;
}

/** The run's skipped/ folder when a stage of the report lists a record there (the report names it then). */
export async function skippedFolderOf(paths: RunPaths, runId: string, stages: readonly StageName[]): Promise<string | undefined> {
  for (const stage of stages) {
    const size = await stat(paths.stageSkipped(runId, stage)).then((s) => s.size, () => 0);
    if (size > 0) return paths.skippedDir(runId);
  }
  return undefined;
}
