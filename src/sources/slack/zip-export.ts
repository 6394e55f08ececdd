import { open, stat, type FileHandle } from 'node:fs/promises';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { BlockCachedReader } from './block-reader.js';
import { readAt } from './positioned-read.js';
import { decodeEntryName, findPathEscape, isIgnoredEntry, normalizeEntryPath } from './entry-names.js';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import { SLACK_LAYOUT, compareCodePoints, relativeToRoot, shareKnownPaths, wholeFileTooLarge, type OpenSlackExportOptions, type SlackExport } from './export.js';
import { RATIO_CHECK_MIN_BYTES, resolveSlackExportLimits, type ResolvedSlackExportLimits } from './limits.js';

/**
 * Opens a zipped export with yauzl. Only the central directory is read up front; every guard that can be
 * checked on it is checked before any data is touched. What is kept per entry is its name (in `files`)
 * and four numbers in typed arrays, never yauzl's Entry objects: those weigh ~650 bytes each (three
 * Buffer views, a dozen fields), which made a 2M-message export (124k day files) hold 80 MB of heap for
 * its listing alone.
 *
 * Day files are read whole (`readWhole`): one positioned read of the compressed bytes and one synchronous
 * inflate into a buffer of exactly the declared size, so no stream, no zlib handle waiting for the garbage
 * collector, and an entry inflating past its declared size is stopped at the first extra byte. Large
 * files (users.json, the conversation lists) are streamed with yauzl (`openFile`), with the inflated byte
 * counts checked while reading and yauzl failing an entry whose inflated size differs from the declared
 * one (validateEntrySizes).
 *
 * Every entry's bytes are checked against the CRC-32 its directory entry declares (yauzl checks none): a
 * damaged archive whose deflate data still inflates to the declared size would otherwise hand over
 * altered text, to be imported as if the export said so.
 */
export async function openZipSlackExport(zipPath: string, options: OpenSlackExportOptions = {}): Promise<SlackExport> {
  const limits = resolveSlackExportLimits(options.limits);
  let zip: yauzl.ZipFile;
  let bytes: BlockCachedReader | undefined;
  try {
    // decodeStrings false: we decode names ourselves (see decodeEntryName) and give our own error for
    // escaping paths instead of yauzl's, which would stop the listing without naming the rule.
    const { size } = await stat(zipPath);
    bytes = BlockCachedReader.open(zipPath, size);
    zip = await yauzl.fromRandomAccessReaderPromise(bytes, size, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (cause) {
    // yauzl closes the reader with the zip file; one it refused is ours to close.
    bytes?.close(() => undefined);
    throw new SlackExportError(`${zipPath}: not a readable zip archive (${(cause as Error).message})`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath }, cause);
  }
  let handle: FileHandle | undefined;
  try {
    const listing = await readDirectory(zip, zipPath, limits);
    const layout = options.layout ?? SLACK_LAYOUT;
    const root = layout.findRoot(listing.paths);
    if (root === undefined)
      throw new SlackExportError(`${zipPath}: no ${layout.markers} in the zip; is this a ${layout.name}?`, SLACK_EXPORT_ERROR.notAnExport, { file: zipPath });
    const table = EntryTable.select(listing, root, options.knownPaths);
    handle = await open(zipPath, 'r');
    const reader = new WholeEntryReader(handle, zipPath, zip.fileSize);
    const find = (path: string) => {
      const row = table.find(path);
      if (row < 0) throw new SlackExportError(`${zipPath}: no file ${path} in the export`, SLACK_EXPORT_ERROR.fileMissing, { file: zipPath, entry: path });
      return row;
    };
    const fileHandle = handle;
    return {
      origin: zipPath,
      kind: 'zip',
      files: table.files,
      has: (path) => table.find(path) >= 0,
      openFile: async (path) => openGuardedEntry(zip, table.entry(find(path)), `${zipPath}!${path}`, limits),
      readWhole: async (path, maxBytes) => reader.read(table, find(path), path, maxBytes),
      close: async () => {
        zip.close();
        await fileHandle.close();
      },
    };
  } catch (error) {
    zip.close();
    await handle?.close();
    throw error;
  }
}

/** The central directory as read: paths in archive order and their numbers, index-aligned. */
interface Listing {
  paths: string[];
  offsets: number[];
  compressed: number[];
  uncompressed: number[];
  methods: number[];
  crcs: number[];
}

/**
 * The entries of the export's root, sorted by path (the order of `files`), found by binary search. Per
 * entry: the path string and 30 bytes of typed arrays.
 */
class EntryTable {
  private constructor(
    readonly files: string[],
    private readonly offsets: Float64Array,
    private readonly compressedSizes: Float64Array,
    private readonly uncompressedSizes: Float64Array,
    private readonly methods: Uint16Array,
    private readonly crcs: Uint32Array,
  ) {}

  static select(listing: Listing, root: string, knownPaths?: ReadonlyMap<string, string>): EntryTable {
    const prefix = root === '' ? '' : `${root}/`;
    const rows: number[] = [];
    for (let i = 0; i < listing.paths.length; i++) if (listing.paths[i]!.startsWith(prefix)) rows.push(i);
    const relative = shareKnownPaths(relativeToRoot(rows.map((i) => listing.paths[i]!), root), knownPaths);
    // relativeToRoot sorts; sort the rows the same way so row k is files[k].
    rows.sort((a, b) => compareCodePoints(listing.paths[a]!, listing.paths[b]!));
    const table = new EntryTable(relative, new Float64Array(rows.length), new Float64Array(rows.length), new Float64Array(rows.length), new Uint16Array(rows.length), new Uint32Array(rows.length));
    rows.forEach((row, k) => {
      table.offsets[k] = listing.offsets[row]!;
      table.compressedSizes[k] = listing.compressed[row]!;
      table.uncompressedSizes[k] = listing.uncompressed[row]!;
      table.methods[k] = listing.methods[row]!;
      table.crcs[k] = listing.crcs[row]!;
    });
    return table;
  }

  /** The row of a path, or -1. */
  find(path: string): number {
    let lo = 0;
    let hi = this.files.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const order = compareCodePoints(this.files[mid]!, path);
      if (order === 0) return mid;
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  offset(row: number): number {
    return this.offsets[row]!;
  }

  compressedSize(row: number): number {
    return this.compressedSizes[row]!;
  }

  uncompressedSize(row: number): number {
    return this.uncompressedSizes[row]!;
  }

  method(row: number): number {
    return this.methods[row]!;
  }

  /** The CRC-32 the directory declares for the entry's inflated bytes. */
  crc(row: number): number {
    return this.crcs[row]!;
  }

  /** What yauzl's openReadStream reads of an entry (encrypted entries were refused when listing). */
  entry(row: number): yauzl.Entry {
    return Object.assign(new yauzl.Entry(), {
      relativeOffsetOfLocalHeader: this.offsets[row]!,
      compressedSize: this.compressedSizes[row]!,
      uncompressedSize: this.uncompressedSizes[row]!,
      compressionMethod: this.methods[row]!,
      crc32: this.crcs[row]!,
      generalPurposeBitFlag: 0,
    });
  }
}

async function readDirectory(zip: yauzl.ZipFile, zipPath: string, limits: ResolvedSlackExportLimits): Promise<Listing> {
  const bomb = (message: string, details: Record<string, unknown>) =>
    new SlackExportError(`${zipPath}: ${message} (refused as a possible zip bomb)`, SLACK_EXPORT_ERROR.zipBomb, { file: zipPath, ...details });
  if (zip.entryCount > limits.maxEntries)
    throw bomb(`${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`, { entries: zip.entryCount, limit: limits.maxEntries });

  const listing: Listing = { paths: [], offsets: [], compressed: [], uncompressed: [], methods: [], crcs: [] };
  const seen = new Set<string>();
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
      if (seen.has(path))
        throw new SlackExportError(`${zipPath}: entry "${path}" appears twice`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath, entry: path });
      seen.add(path);
      listing.paths.push(path);
      listing.offsets.push(entry.relativeOffsetOfLocalHeader);
      listing.compressed.push(entry.compressedSize);
      listing.uncompressed.push(entry.uncompressedSize);
      listing.methods.push(entry.compressionMethod);
      listing.crcs.push(entry.crc32);
    }
  } catch (cause) {
    if (cause instanceof SlackExportError) throw cause;
    throw new SlackExportError(`${zipPath}: the zip's directory is damaged (${(cause as Error).message})`, SLACK_EXPORT_ERROR.zipUnreadable, { file: zipPath }, cause);
  }
  return listing;
}

const LOCAL_HEADER_BYTES = 30;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** Read with the compressed data in the same call, so the local header seldom needs a read of its own. */
const LOCAL_HEADER_ALLOWANCE = LOCAL_HEADER_BYTES + 512;
/** Most day files, compressed, are read synchronously (positioned-read.ts). */
const SYNC_READ_BYTES = 64 * 1024;

/**
 * Reads whole entries: the local header and the compressed bytes in one positioned read (into a buffer
 * reused from one entry to the next), then one synchronous inflate into a buffer of the declared size.
 */
class WholeEntryReader {
  private scratch = Buffer.allocUnsafe(64 * 1024);
  private busy = false;

  constructor(
    private readonly handle: FileHandle,
    private readonly zipPath: string,
    private readonly fileSize: number,
  ) {}

  async read(table: EntryTable, row: number, path: string, maxBytes: number): Promise<Buffer> {
    const where = `${this.zipPath}!${path}`;
    const declared = table.uncompressedSize(row);
    const compressedSize = table.compressedSize(row);
    const method = table.method(row);
    if (declared > maxBytes) throw wholeFileTooLarge(this.zipPath, path, maxBytes);
    if (method !== 0 && method !== 8)
      throw new SlackExportError(`${where}: cannot read the entry (unsupported compression method: ${method})`, SLACK_EXPORT_ERROR.zipUnreadable, { entry: where });

    // Two reads at once (never in this code's own use, but allowed) must not share the scratch buffer.
    const shared = !this.busy;
    if (shared) this.busy = true;
    try {
      const compressed = await this.readCompressed(table.offset(row), compressedSize, where, shared);
      const bytes = method === 0 ? Buffer.from(compressed) : inflateExactly(compressed, declared, where);
      if (bytes.length !== declared)
        throw new SlackExportError(
          `${where}: inflated size differs from the declared size (too ${bytes.length > declared ? 'many' : 'few'} bytes: expected ${declared}, got ${bytes.length})`,
          SLACK_EXPORT_ERROR.zipBomb,
          { entry: where },
        );
      const actual = crc32(bytes);
      if (actual !== table.crc(row)) throw checksumMismatch(where, table.crc(row), actual);
      return bytes;
    } finally {
      if (shared) this.busy = false;
    }
  }

  /** The entry's compressed bytes, a view into the scratch buffer when `shared` (valid until the next read). */
  private async readCompressed(headerOffset: number, size: number, where: string, shared: boolean): Promise<Buffer> {
    const unreadable = (reason: string) => new SlackExportError(`${where}: cannot read the entry (${reason})`, SLACK_EXPORT_ERROR.zipUnreadable, { entry: where });
    const wanted = Math.min(LOCAL_HEADER_ALLOWANCE + size, this.fileSize - headerOffset);
    if (wanted < LOCAL_HEADER_BYTES) throw unreadable('the local file header is past the end of the zip');
    let buffer = this.bufferFor(wanted, shared);
    const bytesRead = await this.readAt(buffer, wanted, headerOffset);
    if (bytesRead < LOCAL_HEADER_BYTES || buffer.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw unreadable('invalid local file header');
    const dataStart = LOCAL_HEADER_BYTES + buffer.readUInt16LE(26) + buffer.readUInt16LE(28);
    if (headerOffset + dataStart + size > this.fileSize) throw unreadable('the entry overflows the end of the zip');
    if (dataStart + size <= bytesRead) return buffer.subarray(dataStart, dataStart + size);
    // A local header longer than the allowance (a long extra field): read the data on its own.
    buffer = this.bufferFor(size, shared);
    if ((await this.readAt(buffer, size, headerOffset + dataStart)) < size) throw unreadable('the zip ends inside the entry');
    return buffer.subarray(0, size);
  }

  private async readAt(buffer: Buffer, length: number, position: number): Promise<number> {
    return readAt(this.handle.fd, buffer, 0, length, position, SYNC_READ_BYTES);
  }

  private bufferFor(size: number, shared: boolean): Buffer {
    if (!shared) return Buffer.allocUnsafe(size);
    if (this.scratch.length < size) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.length * 2));
    return this.scratch;
  }
}

/**
 * Inflates into one buffer of exactly `declared` bytes (plus one, to notice more): zlib stops with an
 * error at the first byte past the declared size, so a lying entry never inflates further.
 */
function inflateExactly(compressed: Buffer, declared: number, where: string): Buffer {
  try {
    return inflateRawSync(compressed, { chunkSize: Math.max(64, declared + 1), maxOutputLength: Math.max(1, declared) });
  } catch (cause) {
    const tooMany = (cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    throw new SlackExportError(
      tooMany
        ? `${where}: inflated size differs from the declared size (too many bytes: expected ${declared})`
        : `${where}: cannot inflate the entry (${(cause as Error).message})`,
      tooMany ? SLACK_EXPORT_ERROR.zipBomb : SLACK_EXPORT_ERROR.zipUnreadable,
      { entry: where },
      cause,
    );
  }
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
/** The entry's bytes are not what the archive says it holds: damaged in storage or in transfer. */
function checksumMismatch(where: string, declared: number, actual: number): SlackExportError {
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  return new SlackExportError(
    `${where}: the entry is damaged (its CRC-32 is ${hex(actual)}, the zip declares ${hex(declared)}); download or export the archive again`,
    SLACK_EXPORT_ERROR.zipUnreadable,
    { entry: where, expectedCrc32: hex(declared), actualCrc32: hex(actual) },
  );
}

/**
 * Counts inflated bytes and stops an entry that grows past the per-entry or ratio guard; at its end, checks
 * the bytes against the entry's CRC-32.
 */
class InflatedBytesGuard extends Transform {
  private bytes = 0;
  private crc = 0;

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
    this.crc = crc32(chunk, this.crc);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.crc === this.entry.crc32 ? null : checksumMismatch(this.where, this.entry.crc32, this.crc));
  }
}
