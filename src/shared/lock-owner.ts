import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** What a lock file holds: who owns it. Written whole before the file becomes visible at the lock path. */
export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  /** Unique per acquisition: names this generation of the lock (a takeover claims it by this name). */
  token: string;
}

export function newLockOwner(now: number): LockOwner {
  return { pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString(), token: randomBytes(12).toString('hex') };
}

/**
 * Reads a lock file's text. Older chatport versions wrote only the pid; anything else unreadable gives
 * an owner with no pid, judged by its heartbeat alone.
 */
export function parseLockOwner(text: string): Partial<LockOwner> {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), host: hostname() };
  try {
    const value = JSON.parse(trimmed) as Partial<LockOwner>;
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/**
 * A lock is stale when its owner is gone: a pid that no longer runs on this host (a SIGKILLed run), or a
 * heartbeat (the file's mtime, refreshed while held) older than `staleAfterMs` — the only sign of life
 * an owner on another host gives, and a guard against a pid reused by an unrelated process.
 * `heldHere` lists the tokens this process holds: a lock naming this pid but none of them was left by an
 * earlier process that had the same pid (a restarted container is pid 1 again).
 */
export function isStale(owner: Partial<LockOwner>, heartbeatAgeMs: number, staleAfterMs: number, heldHere: ReadonlySet<string>): boolean {
  if (heartbeatAgeMs > staleAfterMs) return true;
  if (owner.host !== hostname() || typeof owner.pid !== 'number' || owner.pid <= 0) return false;
  if (owner.pid === process.pid) return owner.token === undefined || !heldHere.has(owner.token);
  return !isAlive(owner.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The name by which a takeover claims one generation of a lock (a legacy lock has no token: its inode). */
export function generationOf(owner: Partial<LockOwner>, ino: number): string {
  return typeof owner.token === 'string' && /^[0-9a-f]+$/.test(owner.token) ? owner.token : `ino-${ino}`;
}
