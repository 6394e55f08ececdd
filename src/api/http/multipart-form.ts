import { randomBytes } from 'node:crypto';
import type { RequestBody } from './body.js';

/** One part of a multipart/form-data body: a text field, or a file's bytes. */
export type FormPart = { name: string; value: string } | { name: string; filename: string; contentType: string; bytes: Uint8Array };

const safe = (text: string) => text.replace(/["\r\n]/g, '_');

/**
 * `multipart/form-data` with any parts (`chatport api --form`, a file message, a display picture). Framed
 * once into one buffer, so a redirect or a retry sends the same bytes again.
 */
export function createMultipartFormBody(parts: readonly FormPart[]): RequestBody {
  const boundary = `chatport-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head =
      'bytes' in part
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${safe(part.name)}"; filename="${safe(part.filename)}"\r\nContent-Type: ${part.contentType}\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${safe(part.name)}"\r\n\r\n`;
    chunks.push(Buffer.from(head), 'bytes' in part ? Buffer.from(part.bytes) : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const whole = Buffer.concat(chunks);
  return { contentType: `multipart/form-data; boundary=${boundary}`, lengthBytes: whole.length, open: () => whole };
}
