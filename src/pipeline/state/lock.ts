import { link, mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import { generationOf, isStale, newLockOwner, parseLockOwner, type LockOwner } from '../../shared/lock-owner.js';
import { processTokens } from '../../shared/process-tokens.js';

/**
 * One run per state folder at a time: two processes appending to one journal would corrupt the run.
 *
 * The lock file is visible only with its owner written: the owner (pid, host, start, a unique token) is
 * written to a file aside, then `link()`ed to the lock path, which fails when the path exists — a lock is
 * never replaced by a plain acquisition. While held, its mtime is refreshed (the heartbeat).
 *
 * A stale lock (lock-owner.ts `isStale`) is taken over atomically: a process first claims that generation
 * of the lock by linking `<lock>.takeover-<token>` (only one process can), checks the lock path is still
 * that very file (inode and contents), and only then renames its own owner file over it. A claimant that
 * finds the file changed gives up; the next round sees the new owner.
 */
export interface LockOptions {
  /** A heartbeat older than this makes the lock stale. Default 60 s. */
  staleAfterMs?: number;
  /** How often a held lock's heartbeat is refreshed. Default 10 s. */
  heartbeatMs?: number;
}

export interface HeldLock {
  release(): Promise<void>;
}

/** Tokens of the locks this process holds, in any copy of chatport loaded in it (tells our own lock from one left by an earlier same pid). */
const heldHere = processTokens('locks');
const MAX_ROUNDS = 20;

export async function acquireLock(path: string, options: LockOptions = {}): Promise<HeldLock> {
  const staleAfterMs = options.staleAfterMs ?? 60_000;
  await mkdir(dirname(path), { recursive: true });
  const owner = newLockOwner(Date.now());
  const aside = `${path}.${owner.token}.tmp`;
  await writeFile(aside, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (await linkIfAbsent(aside, path)) return hold(path, owner, options.heartbeatMs ?? 10_000);
      const seen = await readLock(path);
      if (seen === undefined) continue; // released meanwhile: try again
      if (!isStale(seen.owner, Date.now() - seen.mtimeMs, staleAfterMs, heldHere)) throw lockedError(path, seen.owner);
      if (await takeOver(path, aside, seen, staleAfterMs)) return hold(path, owner, options.heartbeatMs ?? 10_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new ChatportError(`could not lock the state folder ${dirname(path)}: other processes kept taking it over`, {
      code: 'STATE_LOCKED',
      transient: true,
      details: { lock: path },
    });
  } finally {
    // After a link the aside name is a second name of the lock: drop it. After a takeover it is gone.
    await rm(aside, { force: true });
  }
}

interface SeenLock {
  text: string;
  owner: Partial<LockOwner>;
  ino: number;
  mtimeMs: number;
}

async function readLock(path: string): Promise<SeenLock | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { text, owner: parseLockOwner(text), ino: info.ino, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `link()` fails when the target exists: the one atomic "create with contents, never replace" there is. */
async function linkIfAbsent(existing: string, target: string): Promise<boolean> {
  try {
    await link(existing, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function takeOver(path: string, aside: string, seen: SeenLock, staleAfterMs: number): Promise<boolean> {
  const claim = `${path}.takeover-${generationOf(seen.owner, seen.ino)}`;
  if (!(await linkIfAbsent(aside, claim))) {
    await dropAbandonedClaim(claim, staleAfterMs);
    return false;
  }
  try {
    const now = await readLock(path);
    // Only this generation's claimant replaces it; the path must still be the very file judged stale.
    if (now === undefined || now.ino !== seen.ino || now.text !== seen.text) return false;
    await rename(aside, path);
    return true;
  } finally {
    await rm(claim, { force: true });
  }
}

/** A claim is held for a moment; one older than the stale limit was left by a process that died. */
async function dropAbandonedClaim(claim: string, staleAfterMs: number): Promise<void> {
  const info = await stat(claim).catch(() => undefined);
  if (info && Date.now() - info.mtimeMs > staleAfterMs) await rm(claim, { force: true });
}

function hold(path: string, owner: LockOwner, heartbeatMs: number): HeldLock {
  heldHere.add(owner.token);
  const stillOurs = async () => parseLockOwner(await readFile(path, 'utf8').catch(() => '')).token === owner.token;
  const timer = setInterval(() => {
    void (async () => {
      if (await stillOurs()) await utimes(path, new Date(), new Date()).catch(() => undefined);
    })();
  }, heartbeatMs);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      heldHere.delete(owner.token);
      if (await stillOurs()) await rm(path, { force: true });
    },
  };
}

function lockedError(path: string, owner: Partial<LockOwner>): ChatportError {
  const who = owner.pid === undefined ? 'another chatport run' : `another chatport run (pid ${owner.pid}${owner.host ? ` on ${owner.host}` : ''}${owner.startedAt ? `, since ${owner.startedAt}` : ''})`;
  return new ChatportError(`${who} is using the state folder ${dirname(path)}`, {
    code: 'STATE_LOCKED',
    transient: true,
    details: { lock: path, ...(owner.pid === undefined ? {} : { pid: owner.pid }), ...(owner.host ? { host: owner.host } : {}), ...(owner.startedAt ? { startedAt: owner.startedAt } : {}) },
  });
}
