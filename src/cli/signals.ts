import type { Logger } from '../shared/logger.js';
import { InterruptedError } from '../shared/errors.js';
import { ExitCode } from '../shared/exit-codes.js';

/**
 * SIGTERM/SIGINT: the first one aborts `signal` (commands stop taking input, drain and save state);
 * a second one exits at once with 143/130.
 */
export function installSignalHandlers(logger: Logger): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => {
    const code = name === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
    if (controller.signal.aborted) {
      logger.warn({ signal: name }, 'second signal: exiting now');
      process.exit(code);
    }
    logger.warn({ signal: name }, 'signal received: finishing in-flight work, saving state');
    controller.abort(new InterruptedError(name));
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
