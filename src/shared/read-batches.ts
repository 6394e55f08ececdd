import { finished, type Readable } from 'node:stream';

/**
 * An object-mode stream as batches: each step hands out everything the stream has buffered, instead of one
 * object per promise as `for await (const x of stream)` does. At a million records the per-record promise,
 * microtask and generator resumption of each stage in a chain cost more CPU than the mapping itself, so
 * the pipeline moves records in batches and loops over them synchronously.
 *
 * Errors of the stream are thrown from the iterator at the point they happened (batches buffered before
 * the error are handed out first). Leaving the loop early destroys the stream.
 */
export async function* readBatches<T>(stream: Readable): AsyncGenerator<T[]> {
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on('readable', signal);
  const cleanup = finished(stream, { writable: false }, (error) => {
    // A close before the end (ERR_STREAM_PREMATURE_CLOSE) is a failure too: records may be missing.
    if (error) failure = error;
    ended = true;
    signal();
  });
  try {
    for (;;) {
      const batch: T[] = [];
      for (let item = stream.read() as T | null; item !== null; item = stream.read() as T | null) batch.push(item);
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (failure) throw failure;
      if (ended || stream.readableEnded) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    cleanup();
    stream.off('readable', signal);
    if (!stream.readableEnded) stream.destroy();
  }
}
