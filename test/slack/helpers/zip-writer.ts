import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made zip, with the knobs a normal zip library does not expose. */
export interface RawZipEntry {
  /** The name bytes as stored (a string is stored as UTF-8). */
  name: string | Buffer;
  data: Buffer | string;
  /** Set the "language encoding" (UTF-8) flag; default true for string names, false for Buffers. */
  utf8Flag?: boolean;
  /** Deflate (default) or store. */
  compress?: boolean;
  /** Lie about the uncompressed size in both headers (a crafted bomb does). */
  declaredSize?: number;
  /** Store these bytes' CRC-32 instead of the data's (a damaged archive: the data changed after zipping). */
  crcOf?: Buffer | string;
}

/**
 * Writes a minimal zip (no zip64, no data descriptors) in memory, for tests of what real zippers do
 * not produce on request: names without the UTF-8 flag, CP437 names, `..` names, lying sizes.
 */
export function buildRawZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : entry.name;
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    const compress = entry.compress ?? true;
    const stored = compress ? deflateRawSync(data) : data;
    const flags = (entry.utf8Flag ?? typeof entry.name === 'string') ? 0x800 : 0;
    const size = entry.declaredSize ?? data.length;
    const crc = crc32(entry.crcOf ?? data) >>> 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(compress ? 8 : 0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, stored);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(compress ? 8 : 0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The smallest export the reader accepts, plus extra entries. */
export function minimalExportEntries(extra: RawZipEntry[] = []): RawZipEntry[] {
  return [
    { name: 'users.json', data: JSON.stringify([{ id: 'U1', team_id: 'T1', name: 'ana' }]) },
    { name: 'channels.json', data: JSON.stringify([{ id: 'C1', name: 'general', members: ['U1'] }]) },
    ...extra,
  ];
}

/** buildRawZip written to `dir/name`; returns the path. */
export async function writeRawZip(dir: string, name: string, entries: RawZipEntry[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, buildRawZip(entries));
  return path;
}
