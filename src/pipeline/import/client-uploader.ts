import type { Int64 } from '../../shared/int64.js';
import { stat } from 'node:fs/promises';
import { isNotFoundError, type ChatportClient } from '../../api/index.js';
import { ChatportError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { JobPollPace } from './job-poll-pace.js';
import type { StageName } from '../state/events.js';
import type { ChunkUploader } from './stage-runner.js';

export interface UploaderOptions {
  /** FAILED jobs the whole run may meet (each costs a split or a retry) before it stops. Default 1000. */
  maxFailedJobs?: number;
  /** How long one job may stay unfinished. Default 1 h. */
  jobTimeoutMs?: number;
}

/**
 * Chunk uploads through the API client. Each job is polled when its size and the platform's observed
 * throughput say it ends (JobPollPace); the client paces requests to the platform's rate limit. `signal` stops job polling at once (the job id is already in the
 * journal, so a resumed run polls it again); `uploadSignal` stops uploads, and is aborted later, after a
 * drain deadline, so that an upload under way can finish and its job id be recorded.
 */
export function createClientUploader(
  client: ChatportClient,
  deps: { signal: AbortSignal; uploadSignal: AbortSignal; logger: Logger; now?: () => number },
  options: UploaderOptions = {},
): ChunkUploader {
  const maxFailedJobs = options.maxFailedJobs ?? 1000;
  const now = deps.now ?? Date.now;
  // One pace per stage: a users file and a messages file of the same size take different times.
  const paces = new Map<StageName, JobPollPace>();
  const paceOfJob = new Map<Int64, JobPollPace>();
  let failedJobs = 0;
  return {
    rateLimited: () => client.serverInfo.rateLimited,
    pacedPerSecond: (stage) => client.serverInfo.pacedRoutes[stage === 'members' ? 'POST /imports/channels/{id}/members' : `POST /imports/${stage}`],
    async submit(stage, file, channelId, part) {
      const bytes = 'bytes' in file ? file.bytes.length : (await stat(file.path)).size;
      const job = await client.imports.upload(stage, { ...file, filename: `${stage}${part ? `-part-${part}` : ''}.json` }, {
        signal: deps.uploadSignal,
        ...(channelId !== undefined ? { channelId } : {}),
      });
      let pace = paces.get(stage);
      if (!pace) paces.set(stage, (pace = new JobPollPace()));
      pace.submitted(job.id, bytes, now());
      paceOfJob.set(job.id, pace);
      return job.id;
    },
    async wait(jobId) {
      // A job polled again after a resume was not submitted by this run: it polls on the unknown-pace schedule.
      const pace = paceOfJob.get(jobId) ?? new JobPollPace();
      paceOfJob.delete(jobId);
      const job = await client.jobs
        .wait(jobId, { signal: deps.signal, nextPollMs: (polls) => pace.nextPollMs(jobId, polls, now()), timeoutMs: options.jobTimeoutMs ?? 3_600_000 })
        .catch((error: unknown) => {
          pace.forget(jobId);
          if (!isNotFoundError(error)) throw error;
          deps.logger.warn({ jobId }, 'the platform does not know this import job (404); its part is sent again (idempotency keys make that safe)');
          return 'GONE' as const;
        });
      if (job === 'GONE') return job;
      pace.ended(jobId, now());
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
