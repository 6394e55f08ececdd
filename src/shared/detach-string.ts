/**
 * A copy of a string that holds on to nothing else. V8 keeps a substring (a "sliced string", 13 characters
 * or more) as a view of its parent, so an id that a streaming JSON parser cut from a 128 KB input chunk
 * keeps the whole chunk alive for as long as the id is kept: a table of 100,000 remembered message ids had
 * pinned hundreds of chunks (70 MB at 100,000 Discord messages, and growing with the export). Strings kept
 * beyond the record they came from go through this.
 */
export function detachString(value: string): string {
  return value.length < 13 ? value : Buffer.from(value, 'utf8').toString('utf8');
}
