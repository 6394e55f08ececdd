import yauzl from 'yauzl';

const UTF8_FLAG = 0x800;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The name of a zip entry as text. Zips made by macOS Archive Utility and many Linux tools write UTF-8
 * names without setting the "language encoding" flag; decoding those as CP437 (what the flag's absence
 * formally means) would turn `café/2024-01-01.json` into mojibake that matches no channel name. So: the
 * Info-ZIP Unicode Path field when present, else UTF-8 when the flag is set or the bytes are valid UTF-8,
 * else CP437 (what old Windows zippers wrote).
 */
export function decodeEntryName(raw: Buffer, generalPurposeBitFlag: number, extraFields: yauzl.ExtraField[]): string {
  let looksUtf8 = (generalPurposeBitFlag & UTF8_FLAG) !== 0;
  if (!looksUtf8) {
    try {
      strictUtf8.decode(raw);
      looksUtf8 = true;
    } catch {
      looksUtf8 = false;
    }
  }
  const flags = looksUtf8 ? generalPurposeBitFlag | UTF8_FLAG : generalPurposeBitFlag & ~UTF8_FLAG;
  // strictFileNames false: backslashes (Windows zippers) become slashes.
  return yauzl.getFileNameLowLevel(flags, raw, extraFields, false);
}

/**
 * Why a path may not be used, or undefined when it is safe. Rejects absolute paths (`/x`, `C:\x`, `\\host`)
 * and any `..` segment: an export never needs them, and a tool that later unpacks or names files after
 * entries must not be steered outside its folder.
 */
export function findPathEscape(path: string): string | undefined {
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(slashed)) return 'starts with a drive letter';
  if (slashed.split('/').includes('..')) return "climbs out of the export with '..'";
  if (slashed.includes('\0')) return 'contains a NUL character';
  return undefined;
}

/** `a//b/./c` → `a/b/c`; folders keep no trailing slash. Call only on paths `findPathEscape` accepted. */
export function normalizeEntryPath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

/**
 * Entries that are packaging noise, not export content: macOS resource forks (`__MACOSX/…`, `._name`)
 * and Finder's `.DS_Store`.
 */
export function isIgnoredEntry(path: string): boolean {
  const segments = path.split('/');
  if (segments[0] === '__MACOSX') return true;
  const base = segments[segments.length - 1] ?? '';
  return base.startsWith('._') || base === '.DS_Store';
}
