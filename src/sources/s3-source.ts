/**
 * S3 and S3-compatible stores: `s3://bucket/key` (one object), `s3://bucket/prefix/` (every object below),
 * or `s3://bucket/data/**\/*.csv` (a glob over keys). Listing pages through ListObjectsV2; reads are
 * streamed and a read that breaks midway continues from its byte offset with a Range request.
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { ChatportError, InputMissingError } from '../shared/errors.js';
import type { Sleep } from '../shared/async.js';
import { formatS3Url, parseS3Url, type S3ConnectionOptions } from '../shared/s3-location.js';
import { createGlobMatcher, splitGlob } from './glob-pattern.js';
import { isListedData, type InputObject, type InputSource } from './input-source.js';
import { openResumableRead, type FetchedBody } from './resumable-read.js';
import { createSourceS3Client } from './s3-client.js';
import { isCredentialsRefused, isUnreachable, nextListToken, regionMissing } from '../shared/s3-unreachable.js';

export interface S3SourceOptions extends S3ConnectionOptions {
  /** A ready client (tests, or callers sharing one); default: built from the connection options. */
  client?: S3Client;
  /** Keys per ListObjectsV2 page (MaxKeys). Default 1000, the S3 maximum. */
  pageSize?: number;
  /** Resumes of a broken read in a row without new bytes. Default 5. */
  maxResumes?: number;
  /** First resume delay, doubled per consecutive resume. Default 200 ms. */
  resumeDelayMs?: number;
  sleep?: Sleep;
  onResume?: (info: { uri: string; offset: number; attempt: number; cause: unknown }) => void;
  /**
   * Stops every request under way at once (SIGTERM), with the signal's reason: a listing or a read
   * waiting on a store that does not answer must not outlast the pod's grace period.
   */
  signal?: AbortSignal;
}

/** The per-request options that carry the run's signal to the SDK. */
function sendOptions(options: S3SourceOptions): { abortSignal?: AbortSignal } {
  return options.signal ? { abortSignal: options.signal } : {};
}

/** The reason of an abort, or else the S3 failure classified. */
function failureOf(error: unknown, uri: string, options: S3SourceOptions): unknown {
  if (options.signal?.aborted) return options.signal.reason;
  return mapS3Error(error, uri);
}

interface S3ErrorShape {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

function statusOf(error: unknown): number | undefined {
  return (error as S3ErrorShape).$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as S3ErrorShape).name;
  return name === 'NoSuchKey' || name === 'NotFound' || name === 'NoSuchBucket' || statusOf(error) === 404;
}

function changedWhileRead(uri: string, cause?: unknown): ChatportError {
  return new ChatportError(`${uri} changed while it was being read`, { code: 'INPUT_CHANGED', details: { uri }, cause });
}

/** Maps a failed GetObject/HeadObject to the error a user can act on; transient ones get resumed. */
function mapS3Error(error: unknown, uri: string): unknown {
  if (error instanceof ChatportError) return error;
  const noRegion = regionMissing(error, uri, 's3.region in the pipeline file');
  if (noRegion) return noRegion;
  // A missing bucket is a typo or the wrong account, not an empty prefix: say which.
  if ((error as S3ErrorShape).name === 'NoSuchBucket')
    return new InputMissingError(`input not found: ${uri}: the bucket "${parseS3Url(uri).bucket}" does not exist`, { uri }, error);
  if (isNotFound(error)) return new InputMissingError(`input not found: ${uri}`, { uri }, error);
  const status = statusOf(error);
  if (status === 412) return changedWhileRead(uri, error);
  // No credentials found by the SDK's chain is the same mistake as refused ones (no status: not a bug either).
  if (isCredentialsRefused(error as S3ErrorShape, status))
    return new ChatportError(`access to ${uri} was denied (${(error as Error).name}): the S3 credentials are missing, wrong, expired or lack a permission`, { code: 'INPUT_FORBIDDEN', details: { uri }, cause: error });
  // Transient: a read under way is resumed as before; a listing fails with 69 (retry), not as a bug (1).
  if (isUnreachable(error as { name?: string; code?: string }, status)) {
    const said = (error as { code?: string; name?: string }).code ?? (error as Error).name;
    return new ChatportError(`${uri} cannot be read: the S3 store is unreachable or failing (${said}${status === undefined ? '' : `, ${status}`}); check AWS_ENDPOINT_URL_S3 or the network`, {
      code: 'INPUT_UNAVAILABLE', transient: true, details: { uri }, cause: error,
    });
  }
  // Any other answer of the store (301 PermanentRedirect for another region, 400 for a malformed request):
  // the settings are wrong, and a rerun would meet the same answer.
  if (status !== undefined) {
    const said = `${(error as Error).name}, ${status}`;
    return new ChatportError(`${uri} cannot be read: the S3 store refused the request (${said}); check the bucket, the region (s3.region) and the endpoint`, {
      code: 'INPUT_REFUSED', details: { uri, status }, cause: error,
    });
  }
  return error;
}

/** The first byte of a ranged answer (`bytes 100-199/200`); 0 for a whole object (no Content-Range). */
function rangeStart(contentRange: string | undefined): number {
  const match = contentRange === undefined ? null : /^bytes (\d+)-/.exec(contentRange);
  return match ? Number(match[1]) : 0;
}

function openObject(client: S3Client, bucket: string, key: string, options: S3SourceOptions, onFirstAnswer: (answer: { totalBytes?: number; etag?: string }) => void): Readable {
  const uri = formatS3Url({ bucket, key });
  const fetchFrom = async (offset: number, etag: string | undefined): Promise<FetchedBody> => {
    try {
      const response = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}),
          // A resume must read the same version of the object, or the bytes would be stitched from two.
          ...(offset > 0 && etag ? { IfMatch: etag } : {}),
        }),
        sendOptions(options),
      );
      if (!response.Body) throw new Error(`GetObject ${uri} returned no body`);
      // Stores that ignore If-Match answer with the new version: its tag tells.
      if (offset > 0 && etag && response.ETag && response.ETag !== etag) {
        (response.Body as Readable).destroy();
        throw changedWhileRead(uri);
      }
      return { body: response.Body as Readable, totalBytes: response.ContentLength, etag: response.ETag, start: rangeStart(response.ContentRange) };
    } catch (error) {
      throw failureOf(error, uri, options);
    }
  };
  return openResumableRead(fetchFrom, {
    signal: options.signal,
    uri,
    maxResumes: options.maxResumes,
    baseDelayMs: options.resumeDelayMs,
    sleep: options.sleep,
    onResume: options.onResume,
    onFirstAnswer,
  });
}

async function* listObjects(client: S3Client, bucket: string, prefix: string, options: S3SourceOptions) {
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: options.pageSize ?? 1000, ContinuationToken: token }), sendOptions(options));
    for (const item of page.Contents ?? []) {
      // Zero-byte keys ending in "/" are folder markers made by consoles, not data.
      if (item.Key && !(item.Key.endsWith('/') && (item.Size ?? 0) === 0)) yield { key: item.Key, size: item.Size, etag: item.ETag };
    }
    token = nextListToken(page, formatS3Url({ bucket, key: prefix }), 'INPUT_UNAVAILABLE');
  } while (token);
}

export function createS3Source(location: string, options: S3SourceOptions = {}): InputSource {
  const { bucket, key } = parseS3Url(location);
  let client = options.client;
  const getClient = () => (client ??= createSourceS3Client(options));
  const toInput = (objectKey: string, size: number | undefined, etag: string | undefined): InputObject => {
    let read: { size?: number; version?: string } | undefined;
    return {
      uri: formatS3Url({ bucket, key: objectKey }),
      size,
      ...(etag ? { version: etag } : {}),
      open: () => openObject(getClient(), bucket, objectKey, options, (answer) => (read = { size: answer.totalBytes, version: answer.etag })),
      readAs: () => read,
    };
  };

  async function* listUnder(prefix: string, accept: (key: string) => boolean): AsyncGenerator<InputObject> {
    let found = 0;
    try {
      for await (const item of listObjects(getClient(), bucket, prefix, options)) {
        if (!accept(item.key) || !isListedData(item.key.slice(prefix.length))) continue;
        found++;
        yield toInput(item.key, item.size, item.etag);
      }
    } catch (error) {
      throw failureOf(error, location, options);
    }
    if (found === 0) throw new InputMissingError(`no input objects at ${location}`, { uri: location });
  }

  /** The object at `key` itself, or undefined when there is none. */
  async function headOf(objectKey: string): Promise<InputObject | undefined> {
    try {
      const head = await getClient().send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }), sendOptions(options));
      return toInput(objectKey, head.ContentLength, head.ETag);
    } catch (error) {
      if (!isNotFound(error)) throw failureOf(error, location, options);
      return undefined;
    }
  }

  async function* listInputs(): AsyncGenerator<InputObject> {
    const glob = splitGlob(key);
    // A key that exists is that object, even when it reads as a glob ("export [1].csv"): as a glob it
    // would also take other objects ("export 1.csv"), or miss itself.
    const literal = glob.isGlob ? await headOf(key) : undefined;
    if (literal) {
      yield literal;
      return;
    }
    if (glob.isGlob) {
      // The literal part before the first wildcard narrows the listing; the matcher does the rest.
      const prefix = glob.base === '' ? '' : `${glob.base}/`;
      yield* listUnder(prefix, createGlobMatcher(key));
      return;
    }
    if (key === '' || key.endsWith('/')) {
      yield* listUnder(key, () => true);
      return;
    }
    // One object, or else a "folder": s3://bucket/exports/2026 may name either.
    const object = await headOf(key);
    if (object) yield object;
    else yield* listUnder(`${key}/`, () => true);
  }

  return { location, listInputs };
}
