import { expect, it } from 'vitest';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { failureMessage } from '../../src/shared/thrown-message.js';

/**
 * What Node 20's recursive mkdir throws on a read-only file system (a pod's readOnlyRootFilesystem with no
 * volume at --state or --to): ENOENT, not EROFS. Taken from a real run as root against `mount -o ro tmpfs`;
 * a test cannot mount one without root, so the error is built with the same fields.
 */
function readOnlyMkdirError(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), { errno: -2, code: 'ENOENT', syscall: 'mkdir', path });
}

it('a folder chatport cannot make (mkdir ENOENT: a read-only file system) is exit 73 with words that say so, not 66 "input missing"', () => {
  const error = readOnlyMkdirError('/data/state');
  expect(exitCodeFor(error)).toBe(ExitCode.CANT_CREATE);
  expect(failureMessage(error)).toBe('cannot mkdir /data/state: no such file or directory (ENOENT): a folder above it cannot be made, or the file system is read-only');
});

it('a file that is not there (open ENOENT) is still a missing input, 66', () => {
  const error = Object.assign(new Error("ENOENT: no such file or directory, open '/in/users.csv'"), { errno: -2, code: 'ENOENT', syscall: 'open', path: '/in/users.csv' });
  expect(exitCodeFor(error)).toBe(ExitCode.INPUT_MISSING);
  expect(failureMessage(error)).toBe('cannot open /in/users.csv: no such file or directory (ENOENT)');
});
