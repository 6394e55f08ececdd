/** Splitting a glob into the literal part before its first wildcard (a directory, or an S3 list prefix). */
import picomatch from 'picomatch';

export interface GlobParts {
  /** True when the text contains glob syntax (`*`, `?`, `[…]`, `{…}`, extglobs). */
  isGlob: boolean;
  /** The leading part without wildcards, e.g. `data/2026` for `data/2026/*.csv`. */
  base: string;
}

export function splitGlob(pattern: string): GlobParts {
  const scanned = picomatch.scan(pattern);
  return { isGlob: scanned.isGlob, base: scanned.base };
}

/** A matcher for full keys or paths; `*` stays within one `/` segment, `**` crosses them. */
export function createGlobMatcher(pattern: string): (candidate: string) => boolean {
  return picomatch(pattern, { dot: true });
}
