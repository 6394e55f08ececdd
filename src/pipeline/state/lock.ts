import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatportError } from '../../shared/errors.js';

/**
 * One run per state folder at a time: two processes appending to one journal would corrupt the run.
 * The lock file holds the owner's pid; a lock whose process is gone (a SIGKILLed run) is taken over.
 */
export async function acquireLock(path: string): Promise<{ release(): Promise<void> }> {
  await mkdir(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner))
        throw new ChatportError(`another chatport run (pid ${owner}) is using the state folder ${dirname(path)}`, {
          code: 'STATE_LOCKED',
          transient: true,
          details: { lock: path, pid: owner },
        });
      await rm(path, { force: true });
    }
  }
  throw new ChatportError(`could not lock the state folder ${dirname(path)}`, { code: 'STATE_LOCKED', transient: true, details: { lock: path } });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
