import { stat } from 'node:fs/promises';

/** Whether something is at `path` (any error reading it counts as nothing there). */
export function pathExists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
