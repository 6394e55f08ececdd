import type { Logger } from '../shared/logger.js';
import { InterruptedError } from '../shared/errors.js';
import { ExitCode } from '../shared/exit-codes.js';

export interface SignalHandlers {
  signal: AbortSignal;
  /**
   * The command has ended with `exitCode`: a signal from now on ends the process with that code at once.
   * The handlers stay installed until the process exits, since without one Node dies of the signal (143/130)
   * and a scheduler would take a finished export or import for a failed one.
   */
  finished(exitCode: number): void;
}

/**
 * SIGTERM/SIGINT: the first one aborts `signal` (commands stop taking input, drain and save state);
 * a second one exits at once with 143/130.
 */
export function installSignalHandlers(logger: Logger): SignalHandlers {
  const controller = new AbortController();
  let endedWith: number | undefined;
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => {
    if (endedWith !== undefined) process.exit(endedWith);
    const code = name === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
    if (controller.signal.aborted) {
      logger.warn({ signal: name }, 'second signal: exiting now');
      process.exit(code);
    }
    logger.warn({ signal: name }, 'signal received: finishing in-flight work, saving state');
    controller.abort(new InterruptedError(name));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  return {
    signal: controller.signal,
    finished(exitCode) {
      endedWith = exitCode;
    },
  };
}
