import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { MEDIA } from '../../wire/media.js';
import { stringifyJson } from '../../shared/lossless-json.js';

/**
 * A request body that can be sent again, whole: a redirect (307/308) or a retry calls `open()` once
 * more. Never a one-shot stream (decisions.md "Wire"; undici issues #4065 and #4789 show what breaks).
 */
export interface RequestBody {
  contentType: string;
  lengthBytes: number;
  /** A fresh copy of the bytes for one send. */
  open(): string | Uint8Array | Readable;
}

/** Where an upload's bytes come from: a file (streamed from disk on every send) or bytes in memory. */
export type FileSource = { path: string; filename?: string } | { bytes: Uint8Array; filename?: string };

export function createJsonBody(value: unknown, contentType: string = MEDIA.chat): RequestBody {
  const text = stringifyJson(value);
  return { contentType, lengthBytes: Buffer.byteLength(text), open: () => text };
}

/** `application/json+merge-patch` (decisions.md "Wire"). */
export function createMergePatchBody(patch: Record<string, unknown>): RequestBody {
  return createJsonBody(patch, MEDIA.mergePatch);
}

export function createFormBody(fields: Record<string, string>): RequestBody {
  const text = new URLSearchParams(fields).toString();
  return { contentType: MEDIA.form, lengthBytes: Buffer.byteLength(text), open: () => text };
}

/**
 * `multipart/form-data` with one part `file` (the import endpoints). Bytes are framed once into one
 * buffer; a file is streamed from disk on each `open()`, so memory stays flat and the body can be
 * re-sent byte for byte under the same boundary.
 */
export async function createMultipartFileBody(source: FileSource, partContentType: string = MEDIA.json): Promise<RequestBody> {
  const filename = (source.filename ?? ('path' in source ? basename(source.path) : 'items.json')).replace(/["\r\n]/g, '_');
  const boundary = `chatport-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${partContentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if ('bytes' in source) {
    // Sent as three pieces, not concatenated: a copy of every chunk was the import's largest allocation,
    // and memory the allocator then kept.
    const bytes = source.bytes;
    return { contentType, lengthBytes: head.length + bytes.length + tail.length, open: () => Readable.from([head, bytes, tail], { objectMode: false }) };
  }
  // A file is streamed from disk on every open(), so memory stays flat and a redirect re-sends it whole.
  const { size } = await stat(source.path);
  const path = source.path;
  return {
    contentType,
    lengthBytes: head.length + size + tail.length,
    open: () =>
      Readable.from(
        (async function* () {
          yield head;
          yield* createReadStream(path);
          yield tail;
        })(),
        { objectMode: false },
      ),
  };
}
