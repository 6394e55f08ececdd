// Issue 12's floor for a Slack migration: one pass over the export zip, each file inflated once and
// JSON.parse'd, each message of a day file JSON.stringify'd. Nothing else a migration needs (the directory,
// mapping, checks, chunks, uploads, threads).
import { inflateRawSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

const zip = readFileSync(process.argv[2]);
// The central directory: its end record is in the last 64 KiB + 22 bytes.
const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
const entries = zip.readUInt16LE(eocd + 10);
let at = zip.readUInt32LE(eocd + 16);
let messages = 0;
let bytes = 0;
for (let i = 0; i < entries; i++) {
  const method = zip.readUInt16LE(at + 10);
  const compressed = zip.readUInt32LE(at + 20);
  const nameLength = zip.readUInt16LE(at + 28);
  const extraLength = zip.readUInt16LE(at + 30);
  const commentLength = zip.readUInt16LE(at + 32);
  const local = zip.readUInt32LE(at + 42);
  const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
  at += 46 + nameLength + extraLength + commentLength;
  // Only JSON files; macOS's resource forks (__MACOSX/._name.json) are not.
  if (!name.endsWith('.json') || name.startsWith('__MACOSX/')) continue;
  const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const raw = zip.subarray(dataStart, dataStart + compressed);
  const value = JSON.parse((method === 8 ? inflateRawSync(raw) : raw).toString('utf8'));
  // Day files are folder/YYYY-MM-DD.json arrays of messages; the rest (users, channels…) is read once.
  if (/\/\d{4}-\d{2}-\d{2}\.json$/.test(name) && Array.isArray(value))
    for (const message of value) {
      bytes += JSON.stringify(message).length;
      messages++;
    }
}
process.stdout.write(JSON.stringify({ messages, bytes }));
