import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { ChatportError, InputMissingError } from '../../shared/errors.js';
import { SLACK_EXPORT_ERROR, layoutOfFilesEnding, openSlackExport } from '../slack/index.js';

/**
 * A Mattermost bulk export: its JSONL file as written by `mmctl export create` (or the bulk export
 * job), or a .zip holding it and the attachments under data/. Either way, what the reader needs is the
 * JSONL's bytes, streamed: an export can be many gigabytes.
 */
export interface MattermostExport {
  origin: string;
  /** The JSONL's name inside the export (for positions): the file's own name, or its path in the zip. */
  file: string;
  /** The attachment paths a zip holds (posts name them), empty for a bare JSONL. */
  has(path: string): boolean;
  openLines(): Promise<Readable>;
  close(): Promise<void>;
}

export const MATTERMOST_LAYOUT = layoutOfFilesEnding('Mattermost bulk export', '.jsonl');

export async function openMattermostExport(path: string): Promise<MattermostExport> {
  const info = await stat(path).catch((cause: unknown) => {
    throw new InputMissingError(`Mattermost bulk export ${path} does not exist or cannot be read`, { file: path }, cause);
  });
  if (info.isFile() && !(await startsWithZipMagic(path)))
    return { origin: path, file: basename(path), has: () => false, openLines: async () => createReadStream(path), close: async () => undefined };
  const exp = await openSlackExport(path, { layout: MATTERMOST_LAYOUT });
  const jsonl = exp.files.filter((f) => f.endsWith('.jsonl') && !isAttachment(f));
  if (jsonl.length !== 1) {
    await exp.close();
    throw new ChatportError(`${path}: ${jsonl.length} .jsonl files (${jsonl.slice(0, 3).join(', ')}); a Mattermost bulk export holds exactly one`, { code: SLACK_EXPORT_ERROR.notAnExport, details: { file: path } });
  }
  return { origin: path, file: jsonl[0]!, has: (p) => exp.has(p), openLines: () => exp.openFile(jsonl[0]!), close: () => exp.close() };
}

/** A file under `data/`: where the export keeps uploaded files (a person's own .jsonl upload among them). */
const isAttachment = (path: string) => path.split('/').slice(0, -1).includes('data');

async function startsWithZipMagic(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}
