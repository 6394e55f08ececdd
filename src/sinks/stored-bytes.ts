/**
 * Whether an S3 key holds the bytes chatport sent. Content-MD5 (s3-client.ts) makes a store refuse bytes
 * damaged on the way, but a store may ignore it (s3rver does) and keep them. Its ETag then still tells:
 * S3 and its look-alikes answer the MD5 of an object sent whole, and for a multipart upload the MD5 of its
 * parts' MD5s with `-<parts>`. Where the ETag is neither (SSE-KMS or SSE-C, a store whose ETags are opaque)
 * the object is read back and hashed instead: slower, never a false alarm.
 */
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash, type Hash } from 'node:crypto';
import { Transform, pipeline, type Readable } from 'node:stream';
import { ChatportError } from '../shared/errors.js';
import { storedBytesDiffer } from './s3-errors.js';

/** What was sent under a key: its size, its MD5 and, cut at the upload's part size, each part's MD5. */
export interface SentBytes {
  bytes: number;
  md5: string;
  partMd5s: Buffer[];
}

/** `body` passed through while its size, MD5 and part MD5s are taken (a failure of `body` ends the copy with it). */
export function hashingBytes(body: Readable, partSizeBytes: number): { stream: Readable; sent: () => SentBytes } {
  const whole = createHash('md5');
  const parts: Buffer[] = [];
  let part: Hash = createHash('md5');
  let inPart = 0;
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      whole.update(chunk);
      for (let at = 0; at < chunk.length; ) {
        const take = Math.min(partSizeBytes - inPart, chunk.length - at);
        part.update(chunk.subarray(at, at + take));
        inPart += take;
        at += take;
        if (inPart === partSizeBytes) {
          parts.push(part.digest());
          part = createHash('md5');
          inPart = 0;
        }
      }
      done(null, chunk);
    },
  });
  pipeline(body, stream, () => undefined);
  let sent: SentBytes | undefined;
  return {
    stream,
    sent: () => (sent ??= { bytes, md5: whole.digest('hex'), partMd5s: inPart > 0 ? [...parts, part.digest()] : parts }),
  };
}

/** What was sent as one small body (a manifest). */
export function sentBytesOf(body: string | Buffer): SentBytes {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  const md5 = createHash('md5').update(buffer).digest();
  return { bytes: buffer.length, md5: md5.toString('hex'), partMd5s: [md5] };
}

/** The ETags a store that keeps the bytes sent answers: sent whole, or in parts. */
function expectedEtags(sent: SentBytes): string[] {
  const multipart = `${createHash('md5').update(Buffer.concat(sent.partMd5s)).digest('hex')}-${sent.partMd5s.length}`;
  return [sent.md5, multipart];
}

async function md5OfStored(s3: S3Client, bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('md5');
  for await (const chunk of object.Body as Readable) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Throws unless `key` holds what was sent: OUTPUT_WRITE_FAILED (73) for another size, OUTPUT_UNAVAILABLE
 * (69, bytes damaged on the way: a rerun sends them again) for other bytes of the same size. S3 failures
 * pass through for the caller to name the step.
 */
export async function confirmStored(s3: S3Client, bucket: string, key: string, target: string, sent: SentBytes): Promise<void> {
  const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  if (head.ContentLength !== sent.bytes)
    throw new ChatportError(`the store holds ${head.ContentLength ?? 'an unknown number of'} bytes under its key, ${sent.bytes} were sent`, {
      code: 'OUTPUT_WRITE_FAILED', details: { key, stored: head.ContentLength ?? null, sent: sent.bytes },
    });
  const etag = (head.ETag ?? '').replace(/^"|"$/g, '').toLowerCase();
  if (expectedEtags(sent).includes(etag)) return;
  const stored = await md5OfStored(s3, bucket, key);
  if (stored !== sent.md5) throw storedBytesDiffer(target, stored, sent.md5);
}
