import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { isIgnoredEntry } from './entry-names.js';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import { SLACK_LAYOUT, relativeToRoot, shareKnownPaths, wholeFileTooLarge, type OpenSlackExportOptions, type SlackExport } from './export.js';
import { resolveSlackExportLimits } from './limits.js';
import { readAt } from './positioned-read.js';

/**
 * Opens an unpacked export. Symbolic links inside the folder are not followed: an export never contains
 * them, and following one could read files outside the export (the folder twin of a `..` zip entry).
 */
export async function openFolderSlackExport(folder: string, options: OpenSlackExportOptions = {}): Promise<SlackExport> {
  const limits = resolveSlackExportLimits(options.limits);
  const all: string[] = [];
  await walk(folder, '', all, limits.maxEntries, folder);
  const layout = options.layout ?? SLACK_LAYOUT;
  const root = layout.findRoot(all);
  if (root === undefined)
    throw new SlackExportError(`${folder}: no ${layout.markers} found; is this a ${layout.name}?`, SLACK_EXPORT_ERROR.notAnExport, { file: folder });
  const files = shareKnownPaths(relativeToRoot(all, root), options.knownPaths);
  const known = new Set(files);
  const base = root === '' ? folder : join(folder, ...root.split('/'));
  const fileOf = (path: string) => {
    if (!known.has(path)) throw new SlackExportError(`${folder}: no file ${path} in the export`, SLACK_EXPORT_ERROR.fileMissing, { file: folder, entry: path });
    return join(base, ...path.split('/'));
  };
  return {
    origin: folder,
    kind: 'folder',
    files,
    has: (path) => known.has(path),
    openFile: async (path): Promise<Readable> => {
      const stream = createReadStream(fileOf(path));
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
      return stream;
    },
    readWhole: async (path, maxBytes) => readWholeDayFile(fileOf(path), maxBytes, () => wholeFileTooLarge(folder, path, maxBytes)),
    close: async () => undefined,
  };
}

/** A day file is opened and measured synchronously too: four asynchronous calls cost about 200 µs of CPU. */
const SYNC_READ_BYTES = 256 * 1024;

async function readWholeDayFile(file: string, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > maxBytes) throw tooLarge();
    const bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const bytesRead = await readAt(fd, bytes, filled, size - filled, filled, SYNC_READ_BYTES);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === size ? bytes : bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

async function walk(dir: string, relative: string, out: string[], maxEntries: number, origin: string): Promise<void> {
  const handle = await opendir(dir);
  const children: { name: string; isDir: boolean }[] = [];
  for await (const dirent of handle) {
    if (dirent.isSymbolicLink()) continue;
    const path = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
    if (isIgnoredEntry(path)) continue;
    if (dirent.isDirectory()) children.push({ name: dirent.name, isDir: true });
    else if (dirent.isFile()) {
      out.push(path);
      if (out.length > maxEntries)
        throw new SlackExportError(`${origin}: more than ${maxEntries} files; raise limits.maxEntries if this is really one export`, SLACK_EXPORT_ERROR.zipBomb, { file: origin });
    }
  }
  for (const child of children) await walk(join(dir, child.name), relative === '' ? child.name : `${relative}/${child.name}`, out, maxEntries, origin);
}
