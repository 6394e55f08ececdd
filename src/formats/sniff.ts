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
