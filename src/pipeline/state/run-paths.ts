import { join } from 'node:path';
import type { StageName } from './events.js';

/**
 * Where a pipeline's state and runs live. Plain files that `ls` and `jq` can read:
 *
 *   <state>/journal.ndjson                      run state: one event a line (see events.ts)
 *   <state>/lock                                held while a run is going (one run per state folder)
 *   <state>/runs/<runId>/chunks/<stage>/<seq>.json   the JSON array files uploaded
 *   <state>/runs/<runId>/rejects/<stage>.ndjson      rejected records of one stage
 *   <state>/runs/<runId>/rejects.ndjson         all rejects of the run, written at the end
 *   <state>/runs/<runId>/duplicates/<stage>.ndjson   records not sent because another has their key
 *   <state>/runs/<runId>/skipped/<stage>.ndjson      records a skip rule, an empty row or the reader's own rule left out
 *   <state>/runs/<runId>/channel-ids.json       channel source key → platform id, after the channels stage
 *   <state>/runs/<runId>/report.json            the run report
 *   <state>/runs/<runId>/report.html            the run report as a page (src/pipeline/report-html)
 *   <state>/imported/<runId>/<stage>.ndjson     what a later run needs of the records a run imported (imported-index.ts)
 */
export class RunPaths {
  constructor(readonly stateDir: string) {}

  get journal(): string {
    return join(this.stateDir, 'journal.ndjson');
  }
  get lock(): string {
    return join(this.stateDir, 'lock');
  }
  runDir(runId: string): string {
    return join(this.stateDir, 'runs', runId);
  }
  chunkFile(runId: string, stage: StageName, seq: number): string {
    return join(this.runDir(runId), 'chunks', stage, `${String(seq).padStart(6, '0')}.json`);
  }
  stageRejects(runId: string, stage: StageName): string {
    return join(this.runDir(runId), 'rejects', `${stage}.ndjson`);
  }
  /** Records not sent because another record has their key (see SourceDuplicates). */
  stageDuplicates(runId: string, stage: StageName): string {
    return join(this.runDir(runId), 'duplicates', `${stage}.ndjson`);
  }
  /** Records left out on purpose, each with its rule and reason (skipped-listing.ts). */
  stageSkipped(runId: string, stage: StageName): string {
    return join(this.skippedDir(runId), `${stage}.ndjson`);
  }
  skippedDir(runId: string): string {
    return join(this.runDir(runId), 'skipped');
  }
  rejects(runId: string): string {
    return join(this.runDir(runId), 'rejects.ndjson');
  }
  channelIds(runId: string): string {
    return join(this.runDir(runId), 'channel-ids.json');
  }
  report(runId: string): string {
    return join(this.runDir(runId), 'report.json');
  }
  /** Outside the run folder: `runs prune` keeps it, so a record deleted on the platform since is still known. */
  importedIndex(runId: string, stage: StageName): string {
    return join(this.stateDir, 'imported', runId, `${stage}.ndjson`);
  }
}
