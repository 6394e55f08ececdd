import { isSystemError, isUnmakeableFolder } from './exit-codes.js';
import { redactValue } from './secrets.js';

/** Longest text a thrown object is shown as: its facts, not a dump of a client or a buffer. */
const SHOWN_CHARACTERS = 2000;

/**
 * What was thrown, in words: an Error's message; anything else as it is, an object (a dependency's or a
 * mapping's `throw { code: 'X' }`) by its own properties, secret-looking ones redacted, not "[object Object]".
 */
export function thrownMessage(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (thrown === null || typeof thrown !== 'object') return String(thrown);
  let shown: string;
  try {
    shown = JSON.stringify(redactValue(thrown), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) ?? String(thrown);
  } catch {
    shown = `{${Object.keys(thrown).join(', ')}}`;
  }
  if (shown.length > SHOWN_CHARACTERS) shown = `${shown.slice(0, SHOWN_CHARACTERS)}…`;
  const kind = Array.isArray(thrown) ? 'list' : 'object';
  return `a thrown ${kind}, not an Error: ${shown}`;
}

/**
 * A failure in words for people: a system error as what could not be done where (`ENOSPC: no space left on
 * device, write` → `cannot write /path: no space left on device (ENOSPC)`), anything else as thrownMessage.
 */
export function failureMessage(error: unknown): string {
  if (!isSystemError(error)) return thrownMessage(error);
  const why = error.message.replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '');
  const said = `cannot ${error.syscall}${error.path ? ` ${error.path}` : ''}: ${why} (${error.code})`;
  return isUnmakeableFolder(error) ? `${said}: a folder above it cannot be made, or the file system is read-only` : said;
}
