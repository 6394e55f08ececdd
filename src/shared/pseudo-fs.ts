import { resolve } from 'node:path';
import { ConfigError } from './errors.js';

/**
 * Linux's pseudo file systems. No folder can be made under them, and Node 20's recursive mkdir never
 * returns there: it spins and the process ignores SIGTERM.
 */
const PSEUDO_ROOTS = ['/proc', '/sys'];

/** Refuses a folder chatport would write (a state folder, an export's output or rejects) on a pseudo file system, before any mkdir (exit 78). */
export function refuseFolderOnPseudoFs(dir: string, what: string): void {
  const path = resolve(dir);
  const root = PSEUDO_ROOTS.find((r) => path === r || path.startsWith(`${r}/`));
  if (root !== undefined)
    throw new ConfigError(`${what} ${path} is under ${root}, a pseudo file system where no folder can be made; give a folder on a disk or a volume`, { path });
}
