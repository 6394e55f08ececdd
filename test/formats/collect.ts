import { Readable } from 'node:stream';
import { parseRecords } from '../../src/formats/index.js';
import type { ParseRecordsOptions, SourceItem } from '../../src/formats/index.js';

/** Bytes given as separate chunks (to exercise records split across reads), parsed to a list. */
export async function parseAll(chunks: Array<string | Buffer>, options: Partial<ParseRecordsOptions> = {}): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  const bytes = Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
  for await (const item of parseRecords(bytes, { file: 'input', ...options })) out.push(item);
  return out;
}

/** Splits bytes into pieces of `size` bytes. */
export function pieces(data: string | Buffer, size: number): Buffer[] {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}
