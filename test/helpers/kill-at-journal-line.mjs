// Preloaded into a CLI child (node --import) by chatportKilledAt (cli-process.ts): SIGKILLs the process at
// an exact journal line instead of whenever a poll notices it. CHATPORT_TEST_KILL_AT is
// `<event kind>:<n>:<when>[:<text the line holds>]`: at the n-th line of that kind (holding that text) written
// by this process, `after` (the line is in the file), `before` (it never is) or `torn` (half of it is).
// The journal writes each line with one fs.writeSync (src/pipeline/state/journal.ts), which this wraps.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const spec = process.env.CHATPORT_TEST_KILL_AT;
if (spec) {
  const [kind, n, when, ...text] = spec.split(':');
  const holds = text.join(':');
  const start = Buffer.from(`{"t":"${kind}"`);
  const writeSync = fs.writeSync;
  let seen = 0;
  fs.writeSync = function (fd, data, ...rest) {
    const line = Buffer.isBuffer(data) && data.subarray(0, start.length).equals(start) && (!holds || data.includes(holds));
    if (!line || ++seen !== Number(n)) return writeSync.call(this, fd, data, ...rest);
    if (when === 'torn') writeSync.call(this, fd, data.subarray(0, data.length >> 1));
    if (when === 'after') writeSync.call(this, fd, data, ...rest);
    process.kill(process.pid, 'SIGKILL');
    return 0;
  };
  syncBuiltinESMExports();
}
