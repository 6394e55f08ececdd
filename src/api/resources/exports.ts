import { PassThrough, Transform, type Readable } from 'node:stream';
import { Job } from '../../wire/resources.js';
import type { CallSpec, Transport } from '../core/transport.js';
import { ApiError } from '../errors/api-error.js';
import { isApiError } from '../errors/guards.js';
import { resolveLink } from '../hal/links.js';
import { shownPath } from '../core/url.js';
import { mapTransportError } from '../http/send.js';
import { headerValue } from '../http/types.js';
import { withSignal } from './common.js';

export type ExportKind = 'messages' | 'users';
const EXPORT_SCOPE: Record<ExportKind, string> = { messages: 'read:message', users: 'read:user' };

export interface ExportDownload {
  /** The bytes from `offsetBytes` on, as sent (Content-Encoding is not undone here). */
  stream: Readable;
  /** Where the bytes come from (may be another origin: a pre-signed storage URL). */
  url: URL;
  /**
   * Where `stream` starts: the offset asked for, or 0 when the object changed since `ifRange` (the
   * server then sends all of the new object, and the caller must start over, not splice).
   */
  offsetBytes: number;
  /** The object's version: its ETag, else its Last-Modified date; send it back as `ifRange` to resume. */
  validator: string | undefined;
  /** Whole size of the file when the server said (Content-Range or Content-Length). */
  totalBytes: number | undefined;
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

export interface ExportsResource {
  /**
   * Starts an analytics export (202, a job), repeated after a 5xx, a reset or a timeout like any
   * idempotent call: a repeat may start a second export job, which is harmless (the job whose answer
   * arrived is returned; the other runs to its end unread). `onRetry` tells the caller it happened.
   */
  start(kind: ExportKind, options?: { signal?: AbortSignal; onRetry?: CallSpec['onRetry'] }): Promise<Job>;
  /**
   * Opens the data of a finished export job (`file`, or `_links.file`), streamed. The bearer token is
   * sent only when the file is on the API's own origin. `offsetBytes` resumes a cut download with Range;
   * `ifRange` (the first answer's `validator`) makes that Range apply only to the same object (If-Range).
   */
  download(jobOrUrl: Job | string | URL, options?: { offsetBytes?: number; ifRange?: string; signal?: AbortSignal }): Promise<ExportDownload>;
}

export function createExportsResource(transport: Transport): ExportsResource {
  return {
    start(kind, options = {}) {
      return transport.sendJson(
        {
          operation: `start the ${kind} analytics export`,
          method: 'POST',
          path: `/analytics/${kind}`,
          scopes: [EXPORT_SCOPE[kind]],
          retry: 'idempotent',
          ...(options.onRetry ? { onRetry: options.onRetry } : {}),
          ...withSignal(options.signal),
        },
        Job,
      );
    },

    async download(jobOrUrl, options = {}) {
      const url = fileUrlOf(jobOrUrl, transport);
      const offsetBytes = options.offsetBytes ?? 0;
      const offOrigin = url.origin !== transport.apiOrigin;
      let response;
      try {
        response = await transport.send({
          operation: 'download the export file',
          method: 'GET',
          url,
          headers: { accept: '*/*', ...rangeHeaders(offsetBytes, options.ifRange) },
          authenticate: !offOrigin,
          capability: true,
          retry: 'idempotent',
          ...withSignal(options.signal),
        });
      } catch (error) {
        throw linkRefusal(error, url, offOrigin);
      }
      const headers = response.headers;
      const contentRange = headerValue(headers, 'content-range');
      const length = Number(headerValue(headers, 'content-length') ?? NaN);
      const rangeTotal = contentRange ? Number(contentRange.split('/')[1]) : NaN;
      const validator = headerValue(headers, 'etag') ?? headerValue(headers, 'last-modified');
      // 200 to a Range request: either the object changed since `ifRange` (start over from 0), or the
      // server ignores Range and sent the same object whole (skip to the offset ourselves).
      const changed = offsetBytes > 0 && response.status === 200 && options.ifRange !== undefined && validator !== options.ifRange;
      const startsAt = changed ? 0 : offsetBytes;
      const out = startsAt > 0 && response.status === 200 ? skipBytes(startsAt) : new PassThrough();
      relayWithApiErrors(response.body.stream, out, { operation: 'download the export file', method: 'GET', path: shownPath(response.url, true) }, response.url);
      return {
        stream: out,
        url: response.url,
        offsetBytes: startsAt,
        validator,
        totalBytes: Number.isFinite(rangeTotal) ? rangeTotal : Number.isFinite(length) ? length + (response.status === 206 ? startsAt : 0) : undefined,
        contentType: headerValue(headers, 'content-type'),
        contentEncoding: headerValue(headers, 'content-encoding'),
      };
    },
  };
}

/**
 * The file link refused the download: a 403 (the link needs no scope, so only the link itself can be
 * refused) or a 400 (object stores answer it to malformed or expired query credentials), wherever the link
 * or its redirect led, and a 401 from a link on another origin (a 401 on the API's own is about the token).
 * That is an expired or invalid link, not a permission: API_EXPORT_URL_EXPIRED (75), which a new export
 * job's fresh link clears. Other failures pass as they are.
 */
function linkRefusal(error: unknown, url: URL, offOrigin: boolean): unknown {
  if (!isApiError(error) || error.status === undefined) return error;
  const refused = error.status === 400 || error.status === 403 || (offOrigin && error.status === 401);
  if (!refused) return error;
  return new ApiError(
    `the export file link at ${url.origin} refused the download (${error.status}): the link has expired or is not valid`,
    { operation: error.operation, method: error.method, path: error.path, status: error.status, code: 'API_EXPORT_URL_EXPIRED', transient: false, cause: error },
  );
}

function fileUrlOf(jobOrUrl: Job | string | URL, transport: Transport): URL {
  if (typeof jobOrUrl === 'string' || jobOrUrl instanceof URL) return new URL(jobOrUrl, transport.urlFor('/'));
  const base = transport.urlFor(`/jobs/${jobOrUrl.id}`);
  const url = jobOrUrl.file ? new URL(jobOrUrl.file, base) : resolveLink(jobOrUrl._links, 'file', base);
  if (!url) throw new TypeError(`job ${jobOrUrl.id} (${jobOrUrl.type}, ${jobOrUrl.state}) has no export file; only a FINISHED export job has one`);
  return url;
}

/**
 * Pipes the response body into `out`; a connection cut mid-body reaches the reader as a NetworkError
 * (API_NETWORK, transient), so it can resume with `offsetBytes` at what it already has.
 */
function relayWithApiErrors(body: Readable, out: Transform, site: { operation: string; method: string; path: string }, url: URL): void {
  body.on('error', (error) => out.destroy(mapTransportError(error, site, { url }) as Error));
  out.on('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  body.pipe(out);
}

/** Range from the offset, applied by the server only while the object is still `ifRange` (RFC 9110 §13.1.5). */
function rangeHeaders(offsetBytes: number, ifRange: string | undefined): Record<string, string> {
  if (offsetBytes <= 0) return {};
  return { range: `bytes=${offsetBytes}-`, ...(ifRange ? { 'if-range': ifRange } : {}) };
}

function skipBytes(count: number): Transform {
  let left = count;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (left >= chunk.length) {
        left -= chunk.length;
        return done();
      }
      const rest = chunk.subarray(left);
      left = 0;
      done(null, rest);
    },
  });
}
