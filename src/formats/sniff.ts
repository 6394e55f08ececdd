import type { FormatName } from './types.js';

/** gzip member header: ID1 ID2 (RFC 1952 §2.3.1). */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Bytes the sniffer wants to see; fewer is fine when the input is shorter. */
export const SNIFF_BYTES = 512;

/**
 * Guesses the format from the first (decompressed) bytes: after an optional BOM and whitespace, `[` is a
 * JSON array, `{` is NDJSON (one object per line); anything else is CSV. A single pretty-printed object
 * would look like NDJSON and fail line by line, which names the problem; the format can always be given.
 */
export function sniffFormat(head: Uint8Array): FormatName {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  else if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) i = 2;
  for (; i < head.length; i++) {
    const byte = head[i];
    // UTF-16 text interleaves NUL bytes; skip them along with whitespace.
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x00) continue;
    if (byte === 0x5b) return 'json';
    if (byte === 0x7b) return 'ndjson';
    return 'csv';
  }
  return 'csv';
}

/** What a file that holds no records is, and what to do about it. */
export interface NonTextKind {
  what: string;
  todo: string;
}

const SAVE_AS_CSV = 'save the sheet as CSV (in Excel: Save As, "CSV UTF-8")';
const FETCH_AGAIN = 'likely an error page saved in place of the data: fetch the file again';

/**
 * Files that are no text records, by their first bytes. `binaryNext`: the magic is text a CSV may begin
 * with (a column PAR1), so the byte after it must be binary too (a Parquet page header's is 0x15).
 */
const BINARY_SIGNATURES: ReadonlyArray<{ bytes: readonly number[]; kind: NonTextKind; binaryNext?: boolean }> = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: { what: 'a ZIP archive (an Excel .xlsx or LibreOffice .ods workbook is one)', todo: SAVE_AS_CSV } },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], kind: { what: 'an Excel 97-2003 .xls workbook', todo: SAVE_AS_CSV } },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], kind: { what: 'a PDF document', todo: 'export the data itself as CSV, NDJSON or JSON' } },
  { bytes: [0x50, 0x41, 0x52, 0x31], kind: { what: 'a Parquet file', todo: 'export the data as CSV, NDJSON or JSON' }, binaryNext: true },
];

/** What raw (undecoded, decompressed) first bytes show the file to be when it holds no text at all. */
export function binaryFileKind(head: Uint8Array): NonTextKind | undefined {
  return BINARY_SIGNATURES.find(({ bytes, binaryNext }) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b) && (!binaryNext || isControlByte(head[bytes.length])))?.kind;
}

/** A byte no text holds: a control character other than tab and line breaks. */
function isControlByte(byte: number | undefined): boolean {
  return byte !== undefined && byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d;
}

const MARKUP_START = /^\uFEFF?\s*(<!doctype html|<html[\s>]|<\?xml[\s?])/i;

/**
 * An HTML or XML page where CSV was expected: a web server's or S3's error page saved in place of the
 * export. Read as CSV its first line would be the header, and every mapped column "missing".
 */
export function markupFileKind(head: Uint8Array): NonTextKind | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, SNIFF_BYTES)).toString('utf8');
  const found = MARKUP_START.exec(text)?.[1];
  if (found === undefined) return undefined;
  return { what: found.startsWith('<?') ? 'an XML document' : 'an HTML page', todo: FETCH_AGAIN };
}
