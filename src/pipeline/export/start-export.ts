import type { ChatportClient, Job } from '../../api/index.js';
import type { Logger } from '../../shared/logger.js';
import type { ExportDataset } from './schemas.js';

/**
 * Starts one export job. The client repeats the start after a 5xx, a reset or a timeout; an attempt whose
 * answer never arrived may still have started a job on the platform. A second export job is harmless, so
 * the job whose answer arrived is the one used, and the log says that another may exist (its id is known
 * only when an answer named it, which a lost answer never does).
 */
export async function startExportJob(dataset: ExportDataset, deps: { client: Pick<ChatportClient, 'exports'>; logger: Logger }, signal: AbortSignal): Promise<Job> {
  const failedAttempts: Array<{ attempt: number; code: string; status?: number }> = [];
  const job = await deps.client.exports.start(dataset, {
    signal,
    onRetry: ({ attempt, error }) => failedAttempts.push({ attempt, code: error.code, ...(error.status === undefined ? {} : { status: error.status }) }),
  });
  if (failedAttempts.length > 0)
    deps.logger.warn(
      { dataset, jobId: job.id, failedAttempts },
      `the export start needed ${failedAttempts.length + 1} attempts; an earlier one may have started another export job whose answer never arrived (harmless: job ${job.id} is used, the other runs unread)`,
    );
  deps.logger.info({ dataset, jobId: job.id, jobType: job.type, attempts: failedAttempts.length + 1 }, 'export job started');
  return job;
}
