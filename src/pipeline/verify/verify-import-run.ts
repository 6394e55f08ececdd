import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import type { RunReport } from '../report.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import { runVerify } from './run-verify.js';

/**
 * `import --verify`: after a run that ended without error, verify the platform against the source and
 * put the summary into the run's report (report.json is written again with `verification`).
 */
export async function verifyImportRun(
  report: RunReport,
  reportFile: string,
  input: { config: PipelineConfig; client: ChatportClient; logger: Logger; signal?: AbortSignal; sample?: number | 'auto' },
): Promise<void> {
  input.logger.info({ runId: report.runId }, 'verifying what the platform holds against the source');
  const { summary } = await runVerify(
    { config: input.config, rejectsFiles: report.rejectsFile ? [report.rejectsFile] : [], outDir: report.runDir, ...(input.sample !== undefined ? { sample: input.sample } : {}) },
    { client: input.client, logger: input.logger, ...(input.signal ? { signal: input.signal } : {}) },
  );
  report.verification = summary;
  input.logger.info({ status: summary.status, counts: summary.counts }, 'verification finished');
  await writeFileAtomic(reportFile, `${JSON.stringify(report, null, 2)}\n`);
}
