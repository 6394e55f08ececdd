import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { clientError, statusError } from './errors.js';
import type { Ctx } from './http.js';

/**
 * Files sent as multipart (a FILE message's part `file`, decisions.md "Enumerations"): streamed to disk,
 * bounded, and served HOSTED at an unguessable URL that needs no token (`/_files/<token>/<name>`), the way a
 * platform hands out pre-signed storage links. With `--data` they live under `<data>/files`.
 */
export const MAX_HOSTED_FILE_BYTES = 50 * 1024 * 1024;

export interface HostedFile {
  token: string;
  name: string;
  contentType: string;
  size: number;
}

export interface FileForm {
  file: HostedFile;
  /** The text parts (groupTag, username, properties…). */
  fields: Record<string, string>;
}

const SAFE_NAME = /[^A-Za-z0-9._-]+/g;

export class HostedFiles {
  constructor(
    readonly dir: string,
    private readonly base: () => string,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  url(file: Pick<HostedFile, 'token' | 'name'>): string {
    return `${this.base()}/_files/${file.token}/${encodeURIComponent(file.name)}`;
  }

  /** The stored bytes of a token and what they are, or undefined for a token never given out. */
  async open(token: string): Promise<{ stream: Readable; size: number; name: string; contentType: string } | undefined> {
    if (!/^[0-9a-f]{32}$/.test(token)) return undefined;
    const path = join(this.dir, token);
    const info = await stat(path).catch(() => undefined);
    const meta = await readFile(`${path}.json`, 'utf8').then((t) => JSON.parse(t) as { name: string; contentType: string }, () => undefined);
    return info && meta ? { stream: createReadStream(path), size: info.size, ...meta } : undefined;
  }

  /**
   * Reads a multipart form with one part `file` (streamed to disk, at most maxBytes) and its text parts.
   * A second part `file` is a 400: sending one and dropping the other would lose it without a word.
   */
  async readForm(ctx: Ctx, maxBytes = MAX_HOSTED_FILE_BYTES): Promise<FileForm> {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fileSize: maxBytes, fields: 20, parts: 30 } });
    } catch (error) {
      throw clientError(`malformed multipart request: ${(error as Error).message}`);
    }
    const fields: Record<string, string> = {};
    let saving: Promise<HostedFile | undefined> = Promise.resolve(undefined);
    let tooLarge = false;
    let fileParts = 0;
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream, info) => {
      if (name === 'file') fileParts += 1;
      if (name !== 'file' || fileParts > 1) {
        stream.resume();
        return;
      }
      const token = randomBytes(16).toString('hex');
      const path = join(this.dir, token);
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => (tooLarge = true));
      saving = pipeline(stream, createWriteStream(path)).then(() => ({
        token,
        name: (info.filename || 'file').replace(SAFE_NAME, '_'),
        contentType: info.mimeType || 'application/octet-stream',
        size,
      }));
    });
    await new Promise<void>((resolve, reject) => {
      parser.on('error', (error: Error) => reject(clientError(`malformed multipart request: ${error.message}`)));
      parser.on('close', () => resolve());
      ctx.req.on('error', (error) => reject(clientError(`upload interrupted: ${error.message}`)));
      ctx.req.pipe(parser);
    });
    const file = await saving;
    if (tooLarge || fileParts > 1) {
      if (file) await unlink(join(this.dir, file.token)).catch(() => undefined);
      if (tooLarge) throw statusError(413, `the part 'file' is larger than ${maxBytes} bytes`);
      throw clientError(`the multipart request must hold one part named 'file', got ${fileParts}`);
    }
    if (!file) throw clientError(`the multipart request has no part named 'file'`);
    await writeFile(join(this.dir, `${file.token}.json`), JSON.stringify({ name: file.name, contentType: file.contentType }));
    return { file, fields };
  }
}
