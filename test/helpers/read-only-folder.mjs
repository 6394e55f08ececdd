// Preloaded into a CLI child (node --import): the folder CHATPORT_TEST_READ_ONLY_FOLDER behaves as on a
// read-only file system (a pod's readOnlyRootFilesystem without a volume there): every fs/promises call
// that would change something inside it fails with EROFS, as the kernel would answer; reads still work.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';

const folder = process.env.CHATPORT_TEST_READ_ONLY_FOLDER;
if (folder) {
  const inside = (path) => typeof path === 'string' && (resolve(path) === resolve(folder) || resolve(path).startsWith(`${resolve(folder)}/`));
  const refuse = (syscall, path) => Object.assign(new Error(`EROFS: read-only file system, ${syscall} '${path}'`), { errno: -30, code: 'EROFS', syscall, path });
  for (const op of ['mkdir', 'writeFile', 'rename', 'rm', 'unlink', 'open']) {
    const original = fs.promises[op];
    fs.promises[op] = async function (path, ...rest) {
      const writes = op !== 'open' || /[wa+]/.test(String(rest[0] ?? 'r'));
      if (writes && (inside(path) || (op === 'rename' && inside(rest[0])))) throw refuse(op, path);
      return original.call(this, path, ...rest);
    };
  }
  syncBuiltinESMExports();
}
