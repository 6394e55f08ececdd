import { Readable } from 'node:stream';

/**
 * Reads at least `minBytes` (or to the end) from a byte stream and gives them back together with a
 * stream that yields the same bytes again followed by the rest, so a sniffer can look without consuming.
 */
export async function peekBytes(
  source: AsyncIterable<Uint8Array | string>,
  minBytes: number,
): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < minBytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    seen.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(seen);
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  }
  const stream = Readable.from(replay(), { objectMode: false });
  // Closing the replay early (a consumer that stops) must close the source too.
  stream.once('close', () => {
    void iterator.return?.();
  });
  return { head, stream };
}
