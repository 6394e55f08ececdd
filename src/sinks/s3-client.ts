/** The S3 client of the sinks stage (the settings are shared: src/shared/s3-location.ts). */
import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { formatS3Url, resolveS3Connection, s3ClientConfig, type S3ConnectionOptions } from '../shared/s3-location.js';
import { s3Failure } from './s3-errors.js';

/** The commands that send an object's bytes (lib-storage sends each part, or a small file whole, as a buffer). */
const UPLOADS = new Set(['PutObjectCommand', 'UploadPartCommand']);

export function createSinkS3Client(options: S3ConnectionOptions = {}): S3Client {
  const client = new S3Client(s3ClientConfig(options));
  // Outside the SDK's retries and signing, so every call's final failure (a refused connection, refused
  // credentials) is classified here, once, whichever call met it first.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const input = args.input as { Bucket?: string; Key?: string; Prefix?: string };
        throw s3Failure(error, context.commandName ?? 'call', formatS3Url({ bucket: input.Bucket ?? '?', key: input.Key ?? input.Prefix ?? '' }));
      }
    },
    { step: 'initialize', name: 'chatportS3Errors' },
  );
  // With a custom endpoint the SDK's own checksums are off (WHEN_REQUIRED, s3-location.ts): every upload
  // then names the MD5 of its bytes, so the store itself refuses bytes that changed on the way (BadDigest)
  // instead of keeping them; Content-MD5 is the check every S3-compatible store knows. With the SDK's
  // checksums on (AWS) its CRC32 is checked already, and directory buckets (S3 Express) refuse MD5.
  if (resolveS3Connection(options).checksums === 'WHEN_REQUIRED') {
    client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { Bucket?: string; Body?: unknown; ContentMD5?: string };
        if (UPLOADS.has(context.commandName ?? '') && input.ContentMD5 === undefined && !input.Bucket?.endsWith('--x-s3') && (typeof input.Body === 'string' || input.Body instanceof Uint8Array))
          input.ContentMD5 = createHash('md5').update(input.Body).digest('base64');
        return next(args);
      },
      { step: 'initialize', name: 'chatportContentMd5' },
    );
  }
  return client;
}
