import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use after two full collections (the second frees what the first's finalizers let go). */
export function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
