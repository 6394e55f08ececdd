import { afterEach, describe, expect, it, vi } from 'vitest';
import { installSignalHandlers } from '../../src/cli/signals.js';
import { createLogger } from '../../src/shared/logger.js';

afterEach(() => {
  vi.restoreAllMocks();
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
});

describe('signals', () => {
  it('a first SIGTERM aborts the command; a second exits at once with 143', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const handlers = installSignalHandlers(createLogger({ level: 'silent' }));
    process.emit('SIGTERM');
    expect(handlers.signal.aborted).toBe(true);
    expect(exit).not.toHaveBeenCalled();
    process.emit('SIGTERM');
    expect(exit).toHaveBeenCalledWith(143);
  });

  it('a SIGTERM once the command has ended exits with the command\'s own code, not 143', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const handlers = installSignalHandlers(createLogger({ level: 'silent' }));
    handlers.finished(0);
    process.emit('SIGTERM');
    expect(exit).toHaveBeenCalledWith(0);
    expect(process.listenerCount('SIGTERM')).toBeGreaterThan(0);
  });
});
