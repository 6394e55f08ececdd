/** The S3 client of the sinks stage (the settings are shared: src/shared/s3-location.ts). */
import { S3Client } from '@aws-sdk/client-s3';
import { formatS3Url, s3ClientConfig, type S3ConnectionOptions } from '../shared/s3-location.js';
import { s3Failure } from './s3-errors.js';

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
  return client;
}
