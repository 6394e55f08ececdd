/** The S3 client of the sinks stage (the settings are shared: src/shared/s3-location.ts). */
import { S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig, type S3ConnectionOptions } from '../shared/s3-location.js';

export function createSinkS3Client(options: S3ConnectionOptions = {}): S3Client {
  return new S3Client(s3ClientConfig(options));
}
