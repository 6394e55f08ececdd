import { ChatportError } from '../../shared/errors.js';
import type { StageName } from '../state/events.js';

/**
 * What the stage's recent jobs say about the platform: how many FINISHED so far, and how many FAILED in a
 * row since the last one that FINISHED. A refusal is only believed when jobs around it succeed (see
 * importChunk); a long row of FAILED jobs means the platform fails jobs indiscriminately, not that the
 * items are bad.
 */
export class JobHealth {
  finished = 0;
  failedInARow = 0;

  /** `maxFailedInARow`: FAILED jobs in a row after which the platform must show, by a probe, that it works. */
  constructor(readonly maxFailedInARow = 16) {}

  ended(state: 'FINISHED' | 'FAILED'): void {
    if (state === 'FINISHED') {
      this.finished++;
      this.failedInARow = 0;
    } else this.failedInARow++;
  }

  get failingIndiscriminately(): boolean {
    return this.failedInARow >= this.maxFailedInARow;
  }

  private probing: Promise<'FINISHED' | 'FAILED'> | undefined;

  /**
   * Asks the platform whether it completes jobs at all: `probe` sends an import with no items. FINISHED
   * counts as a job that FINISHED; FAILED means the platform fails jobs whatever they hold, and throws
   * PlatformFailingError. Chunks that ask at the same time share one probe.
   */
  async confirmWorking(stage: StageName, probe: () => Promise<'FINISHED' | 'FAILED'>): Promise<void> {
    this.probing ??= probe()
      .then((state) => {
        this.ended(state);
        return state;
      })
      .finally(() => {
        this.probing = undefined;
      });
    if ((await this.probing) === 'FAILED') throw new PlatformFailingError(stage, this.failedInARow);
  }
}

/**
 * The platform FAILED every job lately, even a probe with no items: nothing can be told about the items,
 * so none is refused. Transient (exit 75): the same command later resumes the run and imports them.
 */
export class PlatformFailingError extends ChatportError {
  constructor(stage: StageName, failedInARow: number) {
    super(
      `the platform FAILED every ${stage} import job lately (${failedInARow} in a row, and an empty probe job too): it is failing jobs indiscriminately, so no record was marked refused; run the same command again later to resume`,
      { code: 'PLATFORM_FAILING_JOBS', transient: true, details: { stage, failedInARow } },
    );
  }
}
