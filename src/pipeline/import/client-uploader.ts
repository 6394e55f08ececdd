import { isNotFoundError, type ChatportClient } from '../../api/index.js';
import { ChatportError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { ChunkUploader } from './stage-runner.js';

export interface UploaderOptions {
  /** FAILED jobs the whole run may meet (each costs a split or a retry) before it stops. Default 1000. */
  maxFailedJobs?: number;
  /** How long one job may stay unfinished. Default 1 h. */
  jobTimeoutMs?: number;
  /** First and longest pause between polls of a job. Default 250 ms and 5 s. */
  pollInitialMs?: number;
  pollMaxMs?: number;
}

/**
 * Chunk uploads through the API client. `signal` stops job polling at once (the job id is already in the
 * journal, so a resumed run polls it again); `uploadSignal` stops uploads, and is aborted later, after a
 * drain deadline, so that an upload under way can finish and its job id be recorded.
 */
export function createClientUploader(
  client: ChatportClient,
  deps: { signal: AbortSignal; uploadSignal: AbortSignal; logger: Logger },
  options: UploaderOptions = {},
): ChunkUploader {
  const maxFailedJobs = options.maxFailedJobs ?? 1000;
  let failedJobs = 0;
  return {
    rateLimited: () => client.serverInfo.rateLimited,
    async submit(stage, file, channelId, part) {
      const job = await client.imports.upload(stage, { ...file, filename: `${stage}${part ? `-part-${part}` : ''}.json` }, {
        signal: deps.uploadSignal,
        ...(channelId !== undefined ? { channelId } : {}),
      });
      return job.id;
    },
    async wait(jobId) {
      const job = await client.jobs
        .wait(jobId, {
          signal: deps.signal,
          initialIntervalMs: options.pollInitialMs ?? 250,
          maxIntervalMs: options.pollMaxMs ?? 5_000,
          timeoutMs: options.jobTimeoutMs ?? 3_600_000,
        })
        .catch((error: unknown) => {
          if (!isNotFoundError(error)) throw error;
          deps.logger.warn({ jobId }, 'the platform does not know this import job (404); its part is sent again (idempotency keys make that safe)');
          return 'GONE' as const;
        });
      if (job === 'GONE') return job;
      if (job.state === 'FINISHED' || job.state === 'FAILED') return job.state;
      throw new ChatportError(`job ${jobId} ended in an unknown state ${job.state}`, { code: 'API_RESPONSE_INVALID', details: { jobId, state: job.state } });
    },
    onFailedJob(info) {
      failedJobs++;
      deps.logger.warn({ ...info, failedJobs }, 'import job FAILED; splitting the chunk to find the items the platform refuses');
      if (failedJobs > maxFailedJobs)
        throw new ChatportError(`more than ${maxFailedJobs} import jobs FAILED in this run; stopping (the platform may be refusing everything)`, {
          code: 'JOB_FAILED',
          details: { ...info, failedJobs, maxFailedJobs },
        });
    },
  };
}
