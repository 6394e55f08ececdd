import type { Logger } from '../../shared/logger.js';
import type { StageCounts } from '../report.js';
import type { StageName } from '../state/events.js';
import type { ChunkUploader } from './stage-runner.js';

/**
 * After each upload: records in the stage's counts how often the platform answered 429 during the stage
 * and the upload rate the client paces to, logging when that rate changes. Concurrency stays as
 * configured: the client's pacing keeps requests within the limit, and uploads waiting for their turn
 * keep the platform's queue full.
 */
export function noteRateLimit(counts: StageCounts, stage: StageName, uploader: ChunkUploader, rateLimitedBefore: number, logger: Logger): void {
  const answers = uploader.rateLimited() - rateLimitedBefore;
  if (answers <= 0) return;
  const uploadsPerSecond = uploader.pacedPerSecond?.(stage);
  if (uploadsPerSecond !== counts.rateLimit?.uploadsPerSecond)
    logger.info({ stage, rateLimited: answers, uploadsPerSecond }, uploadsPerSecond ? 'rate limited by the platform: pacing uploads' : 'rate limited by the platform');
  counts.rateLimit = { answers, ...(uploadsPerSecond ? { uploadsPerSecond } : {}) };
}
