/** The S3 client of the sources stage, built from the shared connection settings. */
import { S3Client } from '@aws-sdk/client-s3';
import { registerSecret } from '../shared/secrets.js';
import { resolveS3Connection, type S3ConnectionOptions } from '../shared/s3-location.js';

export function createSourceS3Client(options: S3ConnectionOptions = {}): S3Client {
  const resolved = resolveS3Connection(options);
  registerSecret(resolved.credentials?.secretAccessKey);
  registerSecret(resolved.credentials?.sessionToken);
  return new S3Client({
    region: resolved.region,
    endpoint: resolved.endpoint,
    forcePathStyle: resolved.forcePathStyle,
    credentials: resolved.credentials,
    requestChecksumCalculation: resolved.checksums,
    responseChecksumValidation: resolved.checksums,
  });
}
