/**
 * The rejects of one dataset and date: NDJSON, one line per row that could not be typed, with where it
 * came from, every reason and the record as read. The file is opened on the first reject only, so a
 * clean run leaves no empty files behind. It lives outside the data folder (engines that scan a table's
 * prefix would read it as data): `<rejectsDir>/<dataset>/dt=<date>/rejects-<runId>.ndjson`.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

export function rejectsPathFor(rejectsDir: string, dataset: string, date: string, runId: string): string {
  return join(rejectsDir, dataset, `dt=${date}`, `rejects-${runId}.ndjson`);
}

export class RejectsFile {
  count = 0;
  private stream: WriteStream | undefined;

  constructor(readonly path: string) {}

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

export function positionOf(position: RecordPosition): Pick<RejectLine, 'file' | 'line' | 'index'> {
  return position.line === undefined ? { file: position.file, index: position.index } : { file: position.file, line: position.line, index: position.index };
}
