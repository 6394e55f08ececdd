import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/pipeline/state/lock.js';
import { SPILL_PREFIXES, makeSpillFolder, type removeStaleSpillFolders } from '../../src/shared/spill-folders.js';

/**
 * Two copies of chatport in one process (two packages depending on different versions of it, or a test
 * runner loading modules afresh per file): each copy's lock must hold against the other's runs.
 */
describe('a state folder locked by one copy of chatport in this process', () => {
  it('is refused to another copy (STATE_LOCKED), not taken over as if an earlier life of this pid had left it', async () => {
    // A query makes the module loader load the file as another module, as a second copy of the package is.
    const secondCopy: string = '../../src/pipeline/state/lock.js?second-copy';
    const other = (await import(secondCopy)) as { acquireLock: typeof acquireLock };
    expect(other.acquireLock).not.toBe(acquireLock);
    const lockPath = join(await mkdtemp(join(tmpdir(), 'chatport-lock-copies-')), 'lock');
    const held = await acquireLock(lockPath);
    try {
      await expect(other.acquireLock(lockPath)).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    } finally {
      await held.release();
    }
  });

  it("leaves a spill folder of one copy's live run alone when another copy's run starts", async () => {
    const secondCopy: string = '../../src/shared/spill-folders.js?second-copy';
    const other = (await import(secondCopy)) as { removeStaleSpillFolders: typeof removeStaleSpillFolders };
    const root = await mkdtemp(join(tmpdir(), 'chatport-spill-copies-'));
    const live = makeSpillFolder(SPILL_PREFIXES.keys, root);
    expect(await other.removeStaleSpillFolders(root)).toEqual([]);
    expect(existsSync(live)).toBe(true);
  });
});
