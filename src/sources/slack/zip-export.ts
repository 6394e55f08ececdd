import { Transform, type Readable, type TransformCallback } from 'node:stream';
import yauzl from 'yauzl';
import { decodeEntryName, findPathEscape, isIgnoredEntry, normalizeEntryPath } from './entry-names.js';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import { findExportRoot, relativeToRoot, type OpenSlackExportOptions, type SlackExport } from './export.js';
import { RATIO_CHECK_MIN_BYTES, resolveSlackExportLimits, type ResolvedSlackExportLimits } from './limits.js';

/**
 * Opens a zipped export with yauzl. Only the central directory is read up front (one small record per
 * entry); entry data is inflated while it is read. Every guard that can be checked on the directory is
 * checked before any data is touched; the inflated byte counts are checked again while reading, and
 * yauzl itself fails an entry whose inflated size differs from the declared one (validateEntrySizes).
 */
export async function openZipSlackExport(zipPath: string, options: OpenSlackExportOptions = {}): Promise<SlackExport> {
  const limits = resolveSlackExportLimits(options.limits);
  let zip: yauzl.ZipFile;
  try {
    // decodeStrings false: we decode names ourselves (see decodeEntryName) and give our own error for
    // escaping paths instead of yauzl's, which would stop the listing without naming the rule.
    zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (cause) {
    throw new SlackExportError(`${zipPath}: not a readable zip archive (${(cause as Error).message})`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath }, cause);
  }
  try {
    const entries = await readDirectory(zip, zipPath, limits);
    const root = findExportRoot(entries.keys());
    if (root === undefined)
      throw new SlackExportError(`${zipPath}: no channels.json or users.json in the zip; is this a Slack export?`, SLACK_EXPORT_ERROR.notAnExport, { file: zipPath });
    const files = relativeToRoot(entries.keys(), root);
    const byRelative = new Map(files.map((f) => [f, entries.get(root === '' ? f : `${root}/${f}`)!]));
    return {
      origin: zipPath,
      kind: 'zip',
      files,
      has: (path) => byRelative.has(path),
      openFile: async (path) => {
        const entry = byRelative.get(path);
        if (entry === undefined)
          throw new SlackExportError(`${zipPath}: no file ${path} in the export`, SLACK_EXPORT_ERROR.fileMissing, { file: zipPath, entry: path });
        return openGuardedEntry(zip, entry, `${zipPath}!${path}`, limits);
      },
      close: async () => zip.close(),
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}

async function readDirectory(zip: yauzl.ZipFile, zipPath: string, limits: ResolvedSlackExportLimits): Promise<Map<string, yauzl.Entry>> {
  const bomb = (message: string, details: Record<string, unknown>) =>
    new SlackExportError(`${zipPath}: ${message} (refused as a possible zip bomb)`, SLACK_EXPORT_ERROR.zipBomb, { file: zipPath, ...details });
  if (zip.entryCount > limits.maxEntries)
    throw bomb(`${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`, { entries: zip.entryCount, limit: limits.maxEntries });

  const files = new Map<string, yauzl.Entry>();
  let declaredTotal = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const raw = entry.fileName as unknown as Buffer; // a Buffer because decodeStrings is false
      const name = decodeEntryName(raw, entry.generalPurposeBitFlag, entry.extraFields);
      const escape = findPathEscape(name);
      if (escape !== undefined)
        throw new SlackExportError(`${zipPath}: entry "${name}" ${escape}; refusing the archive`, SLACK_EXPORT_ERROR.pathEscape, { file: zipPath, entry: name });
      const path = normalizeEntryPath(name);
      if (name.endsWith('/') || path === '' || isIgnoredEntry(path)) continue;
      if (entry.isEncrypted())
        throw new SlackExportError(`${zipPath}: entry "${path}" is encrypted; export it again without a password`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath, entry: path });
      if (entry.uncompressedSize > limits.maxEntryBytes)
        throw bomb(`entry "${path}" declares ${entry.uncompressedSize} bytes, more than the limit of ${limits.maxEntryBytes}`, { entry: path });
      if (entry.uncompressedSize >= RATIO_CHECK_MIN_BYTES && entry.uncompressedSize > limits.maxCompressionRatio * Math.max(1, entry.compressedSize))
        throw bomb(`entry "${path}" declares a compression ratio of ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}:1, more than ${limits.maxCompressionRatio}:1`, { entry: path });
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > limits.maxTotalBytes)
        throw bomb(`entries declare more than ${limits.maxTotalBytes} bytes in total`, { limit: limits.maxTotalBytes });
      // A repeated name (possible in a crafted zip) would make "which one did we read" ambiguous.
      if (files.has(path))
        throw new SlackExportError(`${zipPath}: entry "${path}" appears twice`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath, entry: path });
      files.set(path, entry);
    }
  } catch (cause) {
    if (cause instanceof SlackExportError) throw cause;
    throw new SlackExportError(`${zipPath}: the zip's directory is damaged (${(cause as Error).message})`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath }, cause);
  }
  return files;
}

async function openGuardedEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, where: string, limits: ResolvedSlackExportLimits): Promise<Readable> {
  let source: Readable;
  try {
    source = await zip.openReadStreamPromise(entry);
  } catch (cause) {
    throw new SlackExportError(`${where}: cannot read the entry (${(cause as Error).message})`, SLACK_EXPORT_ERROR.zipUnreadable, { entry: where }, cause);
  }
  const guard = new InflatedBytesGuard(entry, where, limits);
  source.once('error', (cause: Error) => {
    // yauzl reports declared/actual size mismatches and bad deflate data here.
    const bomb = /too many bytes|too few bytes/.test(cause.message);
    guard.destroy(
      new SlackExportError(
        `${where}: ${bomb ? 'inflated size differs from the declared size' : 'cannot inflate the entry'} (${cause.message})`,
        bomb ? SLACK_EXPORT_ERROR.zipBomb : SLACK_EXPORT_ERROR.zipUnreadable,
        { entry: where },
        cause,
      ),
    );
  });
  guard.once('close', () => source.destroy());
  return source.pipe(guard);
}

/** Counts inflated bytes and stops an entry that grows past the per-entry or ratio guard. */
class InflatedBytesGuard extends Transform {
  private bytes = 0;

  constructor(
    private readonly entry: yauzl.Entry,
    private readonly where: string,
    private readonly limits: ResolvedSlackExportLimits,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    const ratioExceeded =
      this.bytes >= RATIO_CHECK_MIN_BYTES && this.bytes > this.limits.maxCompressionRatio * Math.max(1, this.entry.compressedSize);
    if (this.bytes > this.limits.maxEntryBytes || ratioExceeded) {
      callback(
        new SlackExportError(
          `${this.where}: inflated past ${ratioExceeded ? `a ${this.limits.maxCompressionRatio}:1 ratio` : `${this.limits.maxEntryBytes} bytes`} (refused as a possible zip bomb)`,
          SLACK_EXPORT_ERROR.zipBomb,
          { entry: this.where, bytes: this.bytes },
        ),
      );
      return;
    }
    callback(null, chunk);
  }
}
