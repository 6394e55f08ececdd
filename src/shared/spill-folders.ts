/**
 * Folders in the OS temp folder that a run fills and removes at its end: an export window's day spool, the
 * Mattermost post sort, the key tables of verification and of sharded runs. A run killed outright (kill -9,
 * OOM) cannot remove them, and they can take gigabytes, so each names its owner (pid, host, a token, as
 * lock files do) and every later run on the host removes the ones whose owner is gone.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { realNow } from './async.js';
import { isStale, newLockOwner, parseLockOwner } from './lock-owner.js';
import type { Logger } from './logger.js';
import { processTokens } from './process-tokens.js';

/** The folders' name prefixes: only these are ever removed, and only with an owner file. */
export const SPILL_PREFIXES = {
  exportDays: 'chatport-export-days-',
  postSort: 'chatport-sort-',
  keys: 'chatport-keys-',
  foreignKeys: 'chatport-foreign-keys-',
  verifyKeys: 'chatport-verify-keys-',
  verifyDifferences: 'chatport-verify-differences-',
} as const;

const OWNER_FILE = 'owner.json';
/** Tokens of the folders this process owns, in any copy of chatport loaded in it: one naming this pid but none of them is an earlier process's. */
const heldHere = processTokens('spill-folders');

/** Makes `dir` (if need be) and writes its owner, before anything else goes in. */
export function claimSpillFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const owner = newLockOwner(realNow());
  heldHere.add(owner.token);
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ ...owner, thread: threadId }));
}

/** A new folder `<root>/<prefix>XXXXXX`, claimed. */
export function makeSpillFolder(prefix: string, root: string = tmpdir()): string {
  const dir = mkdtempSync(join(root, prefix));
  claimSpillFolder(dir);
  return dir;
}

/** A path for a folder made later (by claimSpillFolder, on the first spill): nothing is made before one is needed. */
export function spillFolderPath(prefix: string): string {
  return join(tmpdir(), `${prefix}${process.pid}-${Math.random().toString(36).slice(2)}`);
}

/**
 * Removes the spill folders in `root` left by runs that are gone: a pid of this host that no longer runs,
 * or this pid in an earlier life (a restarted container). A folder without an owner file (an older
 * chatport's, or one being made) or of another host is left alone. Returns the folders removed.
 */
export async function removeStaleSpillFolders(root: string = tmpdir()): Promise<string[]> {
  const prefixes = Object.values(SPILL_PREFIXES);
  const removed: string[] = [];
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names.filter((n) => prefixes.some((p) => n.startsWith(p)))) {
    const dir = join(root, name);
    const text = await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => undefined);
    if (text === undefined || !isStale(parseLockOwner(text), 0, Infinity, heldHere) || isOtherThreadHere(text)) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/**
 * Tokens are known per thread (each worker thread loads this module anew): a folder of this pid made by
 * another thread is taken for that live thread's, not an earlier life's.
 */
function isOtherThreadHere(text: string): boolean {
  const owner = parseLockOwner(text) as { pid?: number; thread?: unknown };
  return owner.pid === process.pid && typeof owner.thread === 'number' && owner.thread !== threadId;
}

/** removeStaleSpillFolders for a run starting: failing to remove one is no reason to fail the run. */
export async function removeSpillsOfKilledRuns(logger: Pick<Logger, 'info' | 'warn'>): Promise<void> {
  try {
    const removed = await removeStaleSpillFolders();
    if (removed.length > 0) logger.info({ folders: removed }, 'removed temporary folders of runs that were killed');
  } catch (error) {
    logger.warn({ err: error }, 'could not remove the temporary folders of killed runs');
  }
}
