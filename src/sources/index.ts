/** The sources stage: where input bytes come from. */
import { isS3Url } from '../shared/s3-location.js';
import { createFileSource, type FileSourceOptions } from './file-source.js';
import type { InputSource } from './input-source.js';
import type { S3SourceOptions } from './s3-source.js';

export type { InputObject, InputSource } from './input-source.js';
export type { FileSourceOptions } from './file-source.js';
export type { S3SourceOptions } from './s3-source.js';
export { createFileSource } from './file-source.js';
export { openResumableRead, InputReadError, type FetchedBody, type ResumableReadOptions } from './resumable-read.js';

export interface InputSourceOptions {
  file?: FileSourceOptions;
  s3?: S3SourceOptions;
}

/**
 * Picks the backend from the location: `s3://…` → S3, anything else (a path, a glob, `file:`) → local files.
 * The S3 backend (and the AWS SDK) is loaded on first use, so local inputs never pay for it.
 */
export function createInputSource(location: string, options: InputSourceOptions = {}): InputSource {
  if (!isS3Url(location)) return createFileSource(location, options.file);
  return {
    location,
    async *listInputs() {
      const { createS3Source } = await import('./s3-source.js');
      yield* createS3Source(location, options.s3).listInputs();
    },
  };
}
