// Preloaded into a CLI child (node --import) by chatportKilledAtFsCall (cli-process.ts): SIGKILLs the process
// right after its n-th change to the file system under a folder, so a test can stop a publish between any
// two of its steps. CHATPORT_TEST_KILL_AT_FS is `<n>:<folder>`: the n-th call of rename, writeFile, rm,
// unlink, copyFile, link or mkdir (fs/promises) naming a path inside <folder>, counted once it has resolved;
// with CHATPORT_TEST_KILL_AT_FS_PATHS set, only calls whose paths (joined by a space) contain that text count.
// It prints `chatport-fs-call <n> <op> <paths>` to stderr first, so the test can say where it killed.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const spec = process.env.CHATPORT_TEST_KILL_AT_FS;
if (spec) {
  const at = spec.indexOf(':');
  const n = Number(spec.slice(0, at));
  const folder = spec.slice(at + 1);
  const holding = process.env.CHATPORT_TEST_KILL_AT_FS_PATHS ?? '';
  let seen = 0;
  for (const op of ['rename', 'writeFile', 'rm', 'unlink', 'copyFile', 'link', 'mkdir']) {
    const original = fs.promises[op];
    fs.promises[op] = async function (...args) {
      const result = await original.apply(this, args);
      const paths = args.slice(0, op === 'rename' || op === 'copyFile' || op === 'link' ? 2 : 1).map(String);
      if (paths.some((p) => p.startsWith(folder)) && paths.join(' ').includes(holding) && ++seen === n) {
        process.stderr.write(`chatport-fs-call ${n} ${op} ${paths.join(' ')}\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      return result;
    };
  }
  syncBuiltinESMExports();
}
