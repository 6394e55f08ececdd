/**
 * The bytes of a finished export job, streamed from its file link (by the client, which sends no bearer
 * token to another origin), continued with a Range request when the connection breaks midway.
 *
 * Protocol facts the resume relies on:
 * - the client answers a server that ignores Range (200 with everything) by skipping bytes itself;
 * - the file's total size is compared on every resume: a file that changed size in between is never
 *   stitched together (the client does not expose ETags, so the size is the check available);
 * - a pre-signed link that expired (API_EXPORT_URL_EXPIRED, or 403 on the API's own origin), typically
 *   between the first request and a resume, is replaced once by reading the job again, which hands out a
 *   fresh link.
 */
import type { Readable } from 'node:stream';
import type { ChatportClient, Job } from '../../api/index.js';
import { ChatportError } from '../../shared/errors.js';
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

  const open = async (offset: number) => {
    try {
      return await client.exports.download(current, { offsetBytes: offset, ...(signal ? { signal } : {}) });
    } catch (error) {
      // Off the API's origin the client names an expired link API_EXPORT_URL_EXPIRED; on it, a plain 403.
      const code = (error as { code?: unknown }).code;
      if (code !== 'API_EXPORT_URL_EXPIRED' && code !== 'API_FORBIDDEN') throw error;
      options.logger.info({ jobId: job.id, offset }, 'export link expired; reading the job again for a fresh one');
      current = await client.jobs.get(job.id, signal ? { signal } : {});
      return client.exports.download(current, { offsetBytes: offset, ...(signal ? { signal } : {}) });
    }
  };

  const fetchFrom = async (offset: number): Promise<FetchedBody> => {
    // A stop request is final here; the resumable reader would otherwise try again.
    if (signal?.aborted) throw new ChatportError(`download of ${options.name} stopped`, { code: 'DOWNLOAD_STOPPED', transient: false, cause: signal.reason });
    const download = await open(offset);
    if (offset === 0) stats.totalBytes = download.totalBytes;
    else if (stats.totalBytes !== undefined && download.totalBytes !== undefined && download.totalBytes !== stats.totalBytes) {
      download.stream.destroy();
      throw new ChatportError(
        `${options.name} changed while it was downloaded: it had ${stats.totalBytes} bytes, on resuming at byte ${offset} it has ${download.totalBytes}; start the export again`,
        { code: 'EXPORT_FILE_CHANGED', transient: false, details: { jobId: job.id, offset, totalBytes: stats.totalBytes, nowBytes: download.totalBytes } },
      );
    }
    return { body: counted(download.stream, stats), ...(download.totalBytes === undefined ? {} : { totalBytes: download.totalBytes }) };
  };

  const stream = openResumableRead(fetchFrom, {
    uri: options.name,
    maxResumes: options.maxResumes ?? 5,
    baseDelayMs: options.resumeDelayMs ?? 500,
    sleep: (ms) => options.sleep(ms, signal),
    onResume: ({ offset, attempt, cause }) => {
      stats.resumes++;
      options.logger.warn({ jobId: job.id, offset, attempt, err: (cause as { code?: string })?.code ?? String(cause) }, 'export download broke; resuming with a Range request');
    },
  });
  return { stream, stats };
}

async function* counted(body: Readable, stats: DownloadStats): AsyncGenerator<Uint8Array> {
  // Leaving this loop early (an error downstream, a stop) destroys the response stream.
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    stats.bytes += chunk.length;
    yield chunk;
  }
}
