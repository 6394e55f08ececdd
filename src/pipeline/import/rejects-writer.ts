import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import type { RecordPosition, Reason } from '../../transform/index.js';
import type { StageName } from '../state/events.js';
import { stringifyJson } from '../../shared/lossless-json.js';

/** One line of rejects.ndjson: where the record came from, every reason, and the record itself. */
export interface RejectLine {
  stage: StageName;
  /** `invalid`: failed mapping or validation; `refused`: the platform FAILED it even alone. */
  kind: 'invalid' | 'refused';
  file: string;
  line?: number;
  index: number;
  reasons: Reason[];
  record: unknown;
  /**
   * The record's source key, when the stage reader accepted it: several records can share one place (a
   * Mattermost post line and its replies), and verification must leave out the rejected one only.
   */
  key?: string;
}

/**
 * Appends reject lines (or other NDJSON lines: the duplicates file) to one stage's file, with backpressure. The file is truncated when opened: every
 * read of a stage's input (first run or resume) writes its rejects anew, so none is listed twice.
 */
export class RejectsWriter<L extends object = RejectLine> {
  count = 0;

  private constructor(
    readonly path: string,
    private readonly stream: WriteStream,
  ) {}

  static async open<L extends object = RejectLine>(path: string): Promise<RejectsWriter<L>> {
    await mkdir(dirname(path), { recursive: true });
    return new RejectsWriter<L>(path, createWriteStream(path, { flags: 'w' }));
  }

  async write(line: L): Promise<void> {
    this.count++;
    if (!this.stream.write(`${stringifyJson(line)}\n`)) await once(this.stream, 'drain');
  }

  private closed: Promise<void> | undefined;

  /** Every line on disk; a second call waits for the first (a stage closes its files before its end is journaled, and again on failure). */
  close(): Promise<void> {
    const stream = this.stream;
    this.closed ??= new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return this.closed;
  }
}

export function rejectLineOf(stage: StageName, kind: RejectLine['kind'], position: RecordPosition, reasons: Reason[], record: unknown, key?: string): RejectLine {
  const line: RejectLine = { stage, kind, file: position.file, index: position.index, reasons, record };
  if (position.line !== undefined) line.line = position.line;
  if (key !== undefined) line.key = key;
  return line;
}
