/** chatport's programmatic API. Every export is listed by name. */
export { ChatportError, ConfigError, UsageError, InputMissingError, InterruptedError, isChatportError } from './shared/errors.js';
export { ExitCode, exitCodeFor } from './shared/exit-codes.js';
export { createLogger } from './shared/logger.js';
