import type { Readable } from 'node:stream';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import type { SlackExportLimits } from './limits.js';

/**
 * One Slack export, whether a zip or its unpacked folder. Paths are relative to the export's root (the
 * folder that holds `channels.json` / `users.json`, even when a zip wraps everything in one top folder),
 * use `/`, and never include `__MACOSX`, `._*` or `.DS_Store` entries.
 */
export interface SlackExport {
  /** The path the export was opened from, for messages and reports. */
  readonly origin: string;
  readonly kind: 'zip' | 'folder';
  /** Every content file, sorted by code point. */
  readonly files: readonly string[];
  has(path: string): boolean;
  /** The bytes of one file, streamed (zip entries are inflated as they are read, never held whole). */
  openFile(path: string): Promise<Readable>;
  /**
   * The bytes of one file, whole (a day file). Refuses a file larger than `maxBytes` (code SLACK_ZIP_BOMB)
   * before reading it. Cheaper than `openFile` for small files: no stream, and a zip entry is inflated at
   * once into a buffer of its declared size.
   */
  readWhole(path: string, maxBytes: number): Promise<Buffer>;
  /** Releases the zip's file handle; a no-op for folders. */
  close(): Promise<void>;
}

/**
 * What kind of export an archive or folder holds: how its root is found among the paths, and what to say
 * when it is not there. The zip and folder readers are shared by the Slack, Discord and Mattermost sources.
 */
export interface ExportLayout {
  /** `Slack export`, `Discord export`, … */
  name: string;
  /** What marks the root, for the message when it is missing: `channels.json or users.json`. */
  markers: string;
  findRoot(paths: Iterable<string>): string | undefined;
}

export const SLACK_LAYOUT: ExportLayout = { name: 'Slack export', markers: 'channels.json or users.json', findRoot: (paths) => findExportRoot(paths) };

/** A layout whose root is the shallowest folder holding a file whose name ends with `suffix` (`.json`, `.jsonl`). */
export function layoutOfFilesEnding(name: string, suffix: string): ExportLayout {
  return { name, markers: `${suffix} file`, findRoot: (paths) => shallowestFolderOf(paths, (base) => base.endsWith(suffix)) };
}

export interface OpenSlackExportOptions {
  /** The kind of export; default SLACK_LAYOUT. */
  layout?: ExportLayout;
  /** Zip-bomb and size guards; defaults in `DEFAULT_SLACK_EXPORT_LIMITS`. */
  limits?: SlackExportLimits;
  /**
   * Paths already held elsewhere (pass 1's day-file lists), by their text: the export's `files` uses these
   * same strings instead of new equal ones, so opening the export a second time does not hold every name
   * twice. Default none.
   */
  knownPaths?: ReadonlyMap<string, string>;
}

/** `paths` with each path replaced by the equal string in `known`, when there is one. */
export function shareKnownPaths(paths: string[], known: ReadonlyMap<string, string> | undefined): string[] {
  if (known === undefined) return paths;
  for (let i = 0; i < paths.length; i++) paths[i] = known.get(paths[i]!) ?? paths[i]!;
  return paths;
}

/** Files whose presence marks the root of an export. */
export const EXPORT_MARKER_FILES = ['channels.json', 'users.json', 'org_users.json'] as const;

/**
 * The export's root inside a listing: the shallowest folder holding a marker file. Zips made by
 * "compress this folder" put everything under one top folder; Slack's own zips do not.
 */
export function findExportRoot(paths: Iterable<string>): string | undefined {
  return shallowestFolderOf(paths, (base) => (EXPORT_MARKER_FILES as readonly string[]).includes(base));
}

function shallowestFolderOf(paths: Iterable<string>, marks: (base: string) => boolean): string | undefined {
  let best: string | undefined;
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    const base = path.slice(slash + 1);
    if (!marks(base)) continue;
    const dir = slash < 0 ? '' : path.slice(0, slash);
    if (best === undefined || depthOf(dir) < depthOf(best) || (depthOf(dir) === depthOf(best) && dir < best)) best = dir;
  }
  return best;
}

function depthOf(dir: string): number {
  return dir === '' ? 0 : dir.split('/').length;
}

/** Paths under `root`, made relative to it, sorted by code point (deterministic on every platform). */
export function relativeToRoot(paths: Iterable<string>, root: string): string[] {
  const prefix = root === '' ? '' : `${root}/`;
  const out: string[] = [];
  for (const path of paths) if (path.startsWith(prefix)) out.push(path.slice(prefix.length));
  return out.sort(compareCodePoints);
}

export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A file read whole that is larger than the whole-file limit (`limits.maxWholeFileBytes`). */
export function wholeFileTooLarge(origin: string, file: string, maxBytes: number): SlackExportError {
  return new SlackExportError(`${origin}: ${file} is larger than ${maxBytes} bytes, the limit for one day file (limits.maxWholeFileBytes)`, SLACK_EXPORT_ERROR.zipBomb, {
    file: origin,
    entry: file,
  });
}
