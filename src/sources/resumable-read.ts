/**
 * A byte stream that survives a connection breaking midway: it counts the bytes it has delivered and asks
 * for the rest (`fetchFrom(offset)`, an HTTP Range request) instead of failing or starting over.
 * The backend supplies the fetch, so this logic knows nothing of S3.
 */
import { Readable } from 'node:stream';
import { ChatportError } from '../shared/errors.js';
import { realSleep, type Sleep } from '../shared/async.js';

export interface FetchedBody {
  body: Readable | AsyncIterable<Uint8Array>;
  /** Total object size, known from the first response (Content-Length or Content-Range). */
  totalBytes?: number;
  /** Version tag of the object, sent back on resumes so a changed object is not stitched together. */
  etag?: string;
  /**
   * The offset of the body's first byte (from Content-Range); default: the offset asked for. HTTP lets a
   * server answer a range request with the whole object (200, start 0), whose bytes before the asked-for
   * offset were delivered already.
   */
  start?: number;
}

export interface ResumableReadOptions {
  /** Shown in errors. */
  uri: string;
  /** Resumes allowed in a row without getting any new byte. Default 5. */
  maxResumes?: number;
  /** Wait before the n-th consecutive resume: `baseDelayMs * 2^(n-1)`. Default 200 ms. */
  baseDelayMs?: number;
  sleep?: Sleep;
  /** Called before each resume, for logs. */
  onResume?: (info: { uri: string; offset: number; attempt: number; cause: unknown }) => void;
  /** Once aborted, a break is not resumed: the signal's reason is thrown. */
  signal?: AbortSignal;
  /** Told what the first answer says of the object (its size and version): what this read reads. */
  onFirstAnswer?: (answer: { totalBytes?: number; etag?: string }) => void;
}

export class InputReadError extends ChatportError {
  constructor(message: string, details: Record<string, unknown>, cause: unknown) {
    super(message, { code: 'INPUT_READ_FAILED', transient: true, details, cause });
  }
}

/** Errors from the fetch that no resume can fix (missing object, changed object, denied). */
function isFinal(error: unknown): boolean {
  return error instanceof ChatportError && !error.transient;
}

/** Bytes at the head of a body starting at `start` that were delivered already (the reader is at `offset`). */
function bytesBefore(offset: number, start: number): number {
  if (start > offset) throw new Error(`asked for the bytes from ${offset}, got a body starting at ${start}`);
  return offset - start;
}

async function* readFromOffset(
  fetchFrom: (offset: number, etag: string | undefined) => Promise<FetchedBody>,
  options: ResumableReadOptions,
): AsyncGenerator<Uint8Array> {
  const maxResumes = options.maxResumes ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const sleep = options.sleep ?? realSleep;
  let offset = 0;
  let total: number | undefined;
  let etag: string | undefined;
  let failures = 0;
  // Set when the consumer stopped reading: Readable.from throws the stream's destroy error in at the
  // `yield`, inside the try below, where it would look like a broken connection and be resumed.
  let consumerGone = false;
  for (;;) {
    let body: FetchedBody['body'] | undefined;
    try {
      const fetched = await fetchFrom(offset, etag);
      body = fetched.body;
      if (offset === 0) {
        total = fetched.totalBytes;
        etag = fetched.etag;
        options.onFirstAnswer?.({ ...(total !== undefined ? { totalBytes: total } : {}), ...(etag !== undefined ? { etag } : {}) });
      }
      let skip = bytesBefore(offset, fetched.start ?? offset);
      for await (const whole of body) {
        const chunk = skip > 0 ? whole.subarray(Math.min(skip, whole.length)) : whole;
        skip -= whole.length - chunk.length;
        if (chunk.length === 0) continue;
        offset += chunk.length;
        failures = 0;
        try {
          yield chunk;
        } catch (error) {
          consumerGone = true;
          throw error;
        }
      }
      if (total === undefined || offset >= total) return;
      throw new Error(`the stream ended after ${offset} of ${total} bytes`);
    } catch (error) {
      if (consumerGone || isFinal(error)) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      failures++;
      if (failures > maxResumes) {
        throw new InputReadError(`reading ${options.uri} failed at byte ${offset} after ${maxResumes} resumes`, { uri: options.uri, offset, total }, error);
      }
      options.onResume?.({ uri: options.uri, offset, attempt: failures, cause: error });
      await sleep(baseDelayMs * 2 ** (failures - 1));
    } finally {
      if (body && body instanceof Readable) body.destroy();
    }
  }
}

/**
 * Opens a resumable byte stream. `fetchFrom(0)` is the first request; `fetchFrom(n, etag)` asks for the
 * bytes from offset `n` on. Nothing is fetched until the stream is read.
 */
export function openResumableRead(
  fetchFrom: (offset: number, etag: string | undefined) => Promise<FetchedBody>,
  options: ResumableReadOptions,
): Readable {
  return Readable.from(readFromOffset(fetchFrom, options), { objectMode: false });
}
