import { join } from 'node:path';
import { realSleep, type Sleep } from '../../shared/async.js';
import { ChatportError, isChatportError } from '../../shared/errors.js';
import { acquireLock, type HeldLock } from '../state/lock.js';

/** How often a run waiting for another's start looks again, and how long it waits in all before giving up (75: retry). */
const POLL_MS = 100;
const MAX_WAIT_MS = 10 * 60_000;

/**
 * The state root's start lock: held by a run (any shard of any count, or an unsharded run) from its
 * shard-count check (count-change.ts) until its start is journaled and its run folder made, which is what
 * the next run's check reads. Each shard locks only its own folder, so without it two shards of different
 * counts starting at once both passed the check and both ran. Held for a moment, so a run that finds it
 * taken waits for it (`sleep` between looks) instead of failing; a holder killed on this host leaves it
 * stale at once, one on another host once its heartbeat is 60 s old (lock.ts).
 */
export async function acquireRunStartLock(stateRoot: string, sleep: Sleep = realSleep, signal?: AbortSignal): Promise<HeldLock> {
  for (let waited = 0; ; waited += POLL_MS) {
    try {
      return await acquireLock(join(stateRoot, 'start.lock'));
    } catch (error) {
      if (!isChatportError(error) || error.code !== 'STATE_LOCKED') throw error;
      if (waited >= MAX_WAIT_MS)
        throw new ChatportError(`another run under ${stateRoot} has held its start lock (start.lock) for over ${MAX_WAIT_MS / 60_000} minutes, where a start takes a moment: ${error.message}; try again later`, {
          code: 'STATE_LOCKED',
          transient: true,
          details: error.details,
        });
      await sleep(POLL_MS, signal);
    }
  }
}
