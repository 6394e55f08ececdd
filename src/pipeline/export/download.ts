/**
 * The bytes of a finished export job, streamed from its file link (by the client, which sends no bearer
 * token to another origin), continued with a Range request when the connection breaks midway.
 *
 * Protocol facts the resume relies on:
 * - a resume sends `If-Range` with the first answer's ETag (or Last-Modified), so the server applies the
 *   Range only to the same object; a changed object comes back whole (200) and the download fails with
 *   EXPORT_FILE_CHANGED, which makes the dataset start over from byte 0 (`exportFromZeroOnChange`) — bytes
 *   of two versions are never stitched together. The total size is compared too, for servers without
 *   validators;
 * - the client answers a server that ignores Range (200 with the same object) by skipping bytes itself;
 * - a link that expired (API_EXPORT_URL_EXPIRED: the client's name for the link's refusal, on any origin), typically
 *   between the first request and a resume, is replaced once by reading the job again, which hands out a
 *   fresh link.
 */
import type { Readable } from 'node:stream';
import type { ChatportClient, Job } from '../../api/index.js';
import { ChatportError, isChatportError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Sleep } from '../../shared/async.js';
import { openResumableRead, type FetchedBody } from '../../sources/index.js';

export interface DownloadOptions {
  /** Resumes in a row without a new byte before giving up. Default 5. */
  maxResumes?: number;
  /** Pause before the n-th resume in a row: `resumeDelayMs * 2^(n-1)`. Default 500 ms. */
  resumeDelayMs?: number;
}

export interface DownloadStats {
  /** Bytes received (as sent: compressed when the server compressed them). */
  bytes: number;
  resumes: number;
  totalBytes: number | undefined;
}

type ExportsClient = Pick<ChatportClient, 'exports' | 'jobs'>;

export function openExportDownload(
  client: ExportsClient,
  job: Job,
  options: DownloadOptions & { signal?: AbortSignal; sleep: Sleep; logger: Logger; name: string },
): { stream: Readable; stats: DownloadStats } {
  const stats: DownloadStats = { bytes: 0, resumes: 0, totalBytes: undefined };
  const signal = options.signal;
  let current = job;

  const open = async (offset: number, validator: string | undefined) => {
    const request = { offsetBytes: offset, ...(validator ? { ifRange: validator } : {}), ...(signal ? { signal } : {}) };
    try {
      return await client.exports.download(current, request);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'API_EXPORT_URL_EXPIRED') throw error;
      // The logger already names the job (a child of the dataset's).
      options.logger.info({ offset }, 'export link expired; reading the job again for a fresh one');
      current = await client.jobs.get(job.id, signal ? { signal } : {});
      return client.exports.download(current, request);
    }
  };

  const fetchFrom = async (offset: number, validator: string | undefined): Promise<FetchedBody> => {
    // A stop request is final here; the resumable reader would otherwise try again.
    if (signal?.aborted) throw new ChatportError(`download of ${options.name} stopped`, { code: 'DOWNLOAD_STOPPED', transient: false, cause: signal.reason });
    const download = await open(offset, validator);
    if (offset === 0) stats.totalBytes = download.totalBytes;
    else {
      const sizeChanged = stats.totalBytes !== undefined && download.totalBytes !== undefined && download.totalBytes !== stats.totalBytes;
      if (sizeChanged || download.offsetBytes !== offset) {
        download.stream.destroy();
        throw new ExportFileChangedError(options.name, { jobId: job.id, offset, totalBytes: stats.totalBytes, nowBytes: download.totalBytes, validator, nowValidator: download.validator });
      }
    }
    return {
      body: counted(download.stream, stats),
      ...(download.totalBytes === undefined ? {} : { totalBytes: download.totalBytes }),
      ...(download.validator === undefined ? {} : { etag: download.validator }),
    };
  };

  const stream = openResumableRead(fetchFrom, {
    uri: options.name,
    maxResumes: options.maxResumes ?? 5,
    baseDelayMs: options.resumeDelayMs ?? 500,
    sleep: (ms) => options.sleep(ms, signal),
    onResume: ({ offset, attempt, cause }) => {
      stats.resumes++;
      options.logger.warn({ offset, attempt, err: (cause as { code?: string })?.code ?? String(cause) }, 'export download broke; resuming with a Range request');
    },
  });
  return { stream, stats };
}

/** The export's object changed between the first answer and a resume: its bytes so far are of another version. */
export class ExportFileChangedError extends ChatportError {
  constructor(name: string, details: Record<string, unknown>) {
    super(`${name} changed while it was downloaded (on resuming at byte ${String(details.offset)}); its bytes so far belong to another version`, {
      code: 'EXPORT_FILE_CHANGED',
      transient: false,
      details,
    });
  }
}

/**
 * zlib's failure (a gzip export cut short or corrupt) as a damaged export file: DATA_INVALID (exit 65),
 * naming the file, not a bug. Other errors pass as they are.
 */
export function damagedExportFile(name: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (isChatportError(error) || typeof code !== 'string' || !code.startsWith('Z_')) return error;
  const why = error instanceof Error ? error.message : code;
  return new ChatportError(`${name} cannot be read: its gzip data is cut short or corrupt (${why}); nothing of it was published`, {
    code: 'DATA_INVALID',
    details: { file: name, zlib: code },
    cause: error,
  });
}

/** How often one dataset starts over because its file changed midway, before the run gives up. */
const MAX_CHANGED_RESTARTS = 2;

/**
 * Runs `exportOnce` (one dataset, download to publication) again from byte 0 when its download found the
 * object changed: nothing of the dataset is published yet, so starting over discards the partial output.
 */
export async function exportFromZeroOnChange<T>(exportOnce: () => Promise<T>, logger: Logger): Promise<T> {
  for (let restarts = 0; ; restarts++) {
    try {
      return await exportOnce();
    } catch (error) {
      if (!(error instanceof ExportFileChangedError) || restarts >= MAX_CHANGED_RESTARTS) throw error;
      logger.warn({ details: error.details, restart: restarts + 1 }, 'export file changed during the download; starting it over from byte 0');
    }
  }
}

async function* counted(body: Readable, stats: DownloadStats): AsyncGenerator<Uint8Array> {
  // Leaving this loop early (an error downstream, a stop) destroys the response stream.
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    stats.bytes += chunk.length;
    yield chunk;
  }
}
