/**
 * S3 or an S3-compatible store. S3 has no rename, so the order of writes carries the meaning:
 *   1. the date's old `_SUCCESS` is deleted first: from here on readers treat the date as incomplete
 *      (otherwise a reader would trust old and new files side by side);
 *   2. data files are uploaded to their final keys (lib-storage multipart Upload, streamed), named with a
 *      tag new to this attempt (`part-<run>-<attempt>-<n>`): a retry keeps its run id (Airflow's run_id),
 *      and an upload over a published name could not be undone;
 *   3. the folder is checked for another writer (below), then the manifest is written;
 *   4. keys in the date's folder that this run did not write are deleted, and this run's files checked again;
 *   5. `_SUCCESS` is written last.
 * `abort` deletes what this attempt uploaded and, unless the manifest was already replaced, puts the old
 * `_SUCCESS` back, so a failed run leaves the previous night's output published as it was.
 * The run's signal (SIGTERM) stops every request but the cleanup's at once; the cleanup gets a short grace
 * after it (s3-stop.ts) and, when the store does not answer in time, says what it left.
 * Two runs of one date at once (a retry while a stalled attempt still runs) would otherwise each delete the
 * other's files as stale and both succeed, leaving a manifest that names deleted files. A run that finds
 * files in the folder it neither wrote nor saw at its start, or misses one of its own, stops instead
 * (OUTPUT_CONCURRENT_WRITE, retryable); S3 has no lock, so this narrows the race but cannot close it.
 */
import {
  DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, DeleteObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Sleep } from '../shared/async.js';
import { UsageError } from '../shared/errors.js';
import { nextListToken } from '../shared/s3-unreachable.js';
import { formatS3Url, parseS3Url, type S3ConnectionOptions } from '../shared/s3-location.js';
import { concurrentWriteError, type Destination, type FinishOutcome, type Publication, type PublishedUrls, type SideFiles } from './destination.js';
import { SUCCESS_MARKER, dataFileName, dataFolder, dateOfFolder, manifestPath, newAttemptTag, validatePartition, validateRunId, type Partition } from './layout.js';
import { createSinkS3Client } from './s3-client.js';
import { s3Failure, s3PublishFailure } from './s3-errors.js';
import { confirmStored, hashingBytes, sentBytesOf, type SentBytes } from './stored-bytes.js';
import { cleanupDeadline, cleanupFailure, sendingWith, uploadClient } from './s3-stop.js';

export interface S3DestinationOptions extends S3ConnectionOptions {
  /** A ready client; default: built from the connection options. */
  client?: S3Client;
  /** Multipart part size. Default 16 MiB (S3 allows 10,000 parts: files up to 160 GB). */
  partSizeBytes?: number;
  /** Parts uploaded at once per file. Default 2; memory is about partSizeBytes × (queueSize + 1). */
  queueSize?: number;
  /** The run's signal: stops uploads and checks at once, and starts the cleanup's grace. */
  signal?: AbortSignal;
  /** How long a cleanup may go on after the signal. Default CLEANUP_GRACE_MS (s3-stop.ts). */
  cleanupGraceMs?: number;
  /** Waits out the cleanup's grace (tests inject one). */
  sleep?: Sleep;
}

/** Every key under `prefix` with its size. */
async function listSizes(client: S3Client, bucket: string, prefix: string): Promise<Map<string, number | undefined>> {
  const sizes = new Map<string, number | undefined>();
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const item of page.Contents ?? []) if (item.Key) sizes.set(item.Key, item.Size);
    token = nextListToken(page, formatS3Url({ bucket, key: prefix }), 'OUTPUT_UNAVAILABLE');
  } while (token);
  return sizes;
}

async function listKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  return [...(await listSizes(client, bucket, prefix)).keys()];
}

/** The format and files of a manifest's text; undefined when it is not one (the format guard names such a file). */
function manifestFiles(text: string): { format?: unknown; files: Array<{ name: string; bytes: number }> } | undefined {
  try {
    const parsed = JSON.parse(text) as { format?: unknown; files?: unknown };
    return Array.isArray(parsed.files) ? { format: parsed.format, files: parsed.files as Array<{ name: string; bytes: number }> } : undefined;
  } catch {
    return undefined;
  }
}

async function deleteKeys(client: S3Client, bucket: string, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    const result = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    if (result.Errors && result.Errors.length > 0) {
      const first = result.Errors[0]!;
      throw new Error(`could not delete ${result.Errors.length} objects, first s3://${bucket}/${first.Key}: ${first.Code} ${first.Message}`);
    }
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}

async function exists(client: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** The error when the folder shows another writer (keys neither ours nor there at our start, or ours gone). */
function otherWriterSeen(folderUrl: string, current: readonly string[], ours: ReadonlySet<string>, before: ReadonlySet<string>, marker: string) {
  const present = new Set(current);
  const foreign = current.filter((k) => !ours.has(k) && !before.has(k) && k !== marker);
  const lost = [...ours].filter((k) => !present.has(k));
  if (foreign.length === 0 && lost.length === 0) return undefined;
  const seen = [
    ...(foreign.length > 0 ? [`${foreign.length} file(s) it did not write appeared (first ${foreign[0]})`] : []),
    ...(lost.length > 0 ? [`${lost.length} of its own file(s) disappeared (first ${lost[0]})`] : []),
  ].join('; ');
  return concurrentWriteError(folderUrl, seen, { foreign: foreign.slice(0, 10), lost: lost.slice(0, 10) });
}

/**
 * The key prefix of a root, without trailing slashes. Empty, `.` and `..` segments are refused: URL
 * parsing and stores normalise them (`p/./r` is stored as `p/r`), so the keys written would not be the
 * keys the manifest names.
 */
function rootPrefix(rootUrl: string, rawPrefix: string): string {
  const prefix = rawPrefix.replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new UsageError(`S3 root ${rootUrl}: a key prefix may not have empty, "." or ".." segments (stores and HTTP clients rewrite them)`, { root: rootUrl });
  return prefix;
}

export function createS3Destination(rootUrl: string, options: S3DestinationOptions = {}): Destination {
  const { bucket, key: rawPrefix } = parseS3Url(rootUrl);
  const prefix = rootPrefix(rootUrl, rawPrefix);
  const keyOf = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  let client = options.client;
  const { signal } = options;
  const baseClient = () => (client ??= createSinkS3Client(options));
  // Every request but the cleanup's stops on the run's signal.
  const getClient = () => sendingWith(baseClient(), signal);

  async function beginPublication(partitionIn: Partition, runIdIn: string): Promise<Publication> {
    const partition = validatePartition(partitionIn);
    const runId = validateRunId(runIdIn);
    const s3 = getClient();
    const folderKey = `${keyOf(dataFolder(partition))}/`;
    const markerKey = `${folderKey}${SUCCESS_MARKER}`;
    const manifestKey = keyOf(manifestPath(partition));
    const urls = { manifestUrl: formatS3Url({ bucket, key: manifestKey }), successUrl: formatS3Url({ bucket, key: markerKey }) };
    // Once stopped, whatever a cut request broke ends as the stop itself (143).
    const wrap = (step: string, error: unknown) =>
      signal?.aborted ? signal.reason : s3PublishFailure(formatS3Url({ bucket, key: folderKey }), step, error, { root: rootUrl, dataset: partition.dataset, date: partition.date });

    let previousKeys: Set<string>;
    let hadMarker: boolean;
    try {
      previousKeys = new Set(await listKeys(s3, bucket, folderKey));
      hadMarker = previousKeys.has(markerKey) || (await exists(s3, bucket, markerKey));
      if (hadMarker) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: markerKey }));
    } catch (error) {
      throw wrap('taking down the previous _SUCCESS', error);
    }
    const attempt = newAttemptTag(runId, folderKey, previousKeys);
    const uploaded: string[] = [];
    // The cleanup's requests (lib-storage's AbortMultipartUpload, then `abort`) share one grace after the signal.
    const deadline = cleanupDeadline(signal, options.cleanupGraceMs, options.sleep);
    const cleanup = sendingWith(baseClient(), deadline.signal);
    let state: 'open' | 'committed' | 'aborted' = 'open';
    let manifestReplaced = false;
    // Another writer's files may be in the folder: the old `_SUCCESS` must not come back to mark them.
    let otherWriter = false;
    const soleWriter = async (ours: ReadonlySet<string>) => {
      const seen = otherWriterSeen(formatS3Url({ bucket, key: folderKey }), await listKeys(s3, bucket, folderKey), ours, previousKeys, markerKey);
      otherWriter = seen !== undefined;
      if (seen) throw seen;
    };

    /**
     * Nothing else checks what the store kept: a store that keeps other bytes than it was sent (s3rver kept
     * aws-chunked framing; one that ignores Content-MD5 keeps damaged bytes) would publish a manifest whose
     * sizes and sha256 its files do not have (stored-bytes.ts: one HEAD per file, a read-back when the ETag
     * cannot tell).
     */
    const checkStored = async (name: string, key: string, sent: SentBytes) => {
      try {
        await confirmStored(s3, bucket, key, formatS3Url({ bucket, key }), sent);
      } catch (error) {
        throw wrap(`checking the stored bytes of ${name}`, error);
      }
    };

    return {
      dataUrl: formatS3Url({ bucket, key: folderKey }),
      urlOf: (name) => formatS3Url({ bucket, key: `${folderKey}${name}` }),
      dataFileName: (sequence, extension) => dataFileName(runId, sequence, extension, attempt),

      async writeDataFile(name: string, body: Readable, contentType: string): Promise<void> {
        const key = `${folderKey}${name}`;
        uploaded.push(key);
        // A failure of the rows themselves (a broken download, a bad value) must surface as itself.
        let bodyError: { error: unknown } | undefined;
        body.once('error', (error) => (bodyError ??= { error }));
        const partSize = options.partSizeBytes ?? 16 * 1024 * 1024;
        const counted = hashingBytes(body, partSize);
        let partsLeft = false;
        try {
          await new Upload({
            client: uploadClient(s3, cleanup, () => (partsLeft = true)),
            params: { Bucket: bucket, Key: key, Body: counted.stream, ContentType: contentType },
            partSize,
            queueSize: options.queueSize ?? 2,
          }).done();
        } catch (error) {
          body.destroy();
          if (bodyError) throw bodyError.error;
          const left = partsLeft ? ' (its parts could not be removed either: they stay stored until a bucket lifecycle rule, AbortIncompleteMultipartUpload, removes them)' : '';
          throw wrap(`uploading ${name}${left}`, error);
        }
        await checkStored(name, key, counted.sent());
      },

      async commit(manifestJson: string): Promise<PublishedUrls> {
        if (state !== 'open') throw new Error(`publication already ${state}`);
        const ours = new Set(uploaded);
        let step = 'checking that no other run writes this date';
        try {
          await soleWriter(ours);
          step = 'writing the manifest';
          manifestReplaced = true;
          await s3.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey, Body: manifestJson, ContentType: 'application/json' }));
          step = 'checking the stored bytes of the manifest';
          await confirmStored(s3, bucket, manifestKey, urls.manifestUrl, sentBytesOf(manifestJson));
          state = 'committed';
          step = 'removing files of the previous output';
          const stale = (await listKeys(s3, bucket, folderKey)).filter((k) => !ours.has(k) && k !== markerKey);
          await deleteKeys(s3, bucket, stale);
          step = 'checking that no other run removed files of this run';
          await soleWriter(ours);
          step = 'writing _SUCCESS';
          // An explicit length: without it the SDK prints a console warning (not a JSON log line) for ''.
          await s3.send(new PutObjectCommand({ Bucket: bucket, Key: markerKey, Body: '', ContentLength: 0 }));
        } catch (error) {
          throw wrap(step, error);
        }
        deadline.end();
        return urls;
      },

      async abort(): Promise<void> {
        if (state !== 'open') return deadline.end();
        state = 'aborted';
        const restoreMarker = hadMarker && !manifestReplaced && !otherWriter;
        let filesLeft = uploaded.length;
        try {
          // The attempt's keys are new (its tag), so deleting them leaves the previous output whole.
          await deleteKeys(cleanup, bucket, uploaded);
          filesLeft = 0;
          if (restoreMarker) await cleanup.send(new PutObjectCommand({ Bucket: bucket, Key: markerKey, Body: '', ContentLength: 0 }));
        } catch (error) {
          const left = { folderUrl: formatS3Url({ bucket, key: folderKey }), filesLeft, successDown: restoreMarker, manifestReplaced };
          throw cleanupFailure(left, deadline.signal.aborted ? deadline.signal.reason : error);
        } finally {
          deadline.end();
        }
      },
    };
  }

  async function readManifest(partition: Partition): Promise<string | undefined> {
    const key = keyOf(manifestPath(validatePartition(partition)));
    let answer;
    try {
      answer = await getClient().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      return await answer.Body?.transformToString('utf8');
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // The body is read after the client's middleware has returned: a connection cut midway is classified here.
      throw s3Failure(error, 'GetObjectCommand', formatS3Url({ bucket, key }));
    }
  }

  async function isMarked(partition: Partition): Promise<boolean> {
    const key = `${keyOf(dataFolder(validatePartition(partition)))}/${SUCCESS_MARKER}`;
    try {
      return await exists(getClient(), bucket, key);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw s3Failure(error, 'HeadObjectCommand', formatS3Url({ bucket, key }));
    }
  }

  /**
   * A killed run left the date without `_SUCCESS`: before its manifest was written (the old manifest still
   * names the old files, all there, beside some of the run's uploads) or after (the new manifest names the
   * new files, all there, beside old ones). Either way the manifest's files make a whole date: the others
   * are deleted and `_SUCCESS` written, as the killed run's own cleanup or publish would have.
   */
  async function finishInterrupted(partitionIn: Partition, format: string): Promise<FinishOutcome> {
    const partition = validatePartition(partitionIn);
    const folderKey = `${keyOf(dataFolder(partition))}/`;
    const markerKey = `${folderKey}${SUCCESS_MARKER}`;
    const s3 = getClient();
    try {
      const sizes = await listSizes(s3, bucket, folderKey);
      if (sizes.has(markerKey)) return 'none';
      const text = await readManifest(partition);
      const manifest = text === undefined ? undefined : manifestFiles(text);
      if (manifest?.format !== format) return 'none';
      const named = new Set(manifest.files.map((f) => `${folderKey}${f.name}`));
      if (manifest.files.some((f) => sizes.get(`${folderKey}${f.name}`) !== f.bytes)) return 'none';
      await deleteKeys(s3, bucket, [...sizes.keys()].filter((k) => !named.has(k)));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: markerKey, Body: '', ContentLength: 0 }));
      return 'finished';
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw s3PublishFailure(formatS3Url({ bucket, key: folderKey }), 'looking for a publication a killed run left half done, to finish it', error, { root: rootUrl, dataset: partition.dataset, date: partition.date });
    }
  }

  async function unmarkedDates(dataset: string): Promise<string[]> {
    const folderKey = `${keyOf(validatePartition({ dataset, date: '2000-01-01' }).dataset)}/`;
    const marked = new Map<string, boolean>();
    try {
      for (const key of await listKeys(getClient(), bucket, folderKey)) {
        const [folder, ...rest] = key.slice(folderKey.length).split('/');
        const date = dateOfFolder(folder ?? '');
        if (date !== undefined && rest.length > 0) marked.set(date, marked.get(date) === true || rest.join('/') === SUCCESS_MARKER);
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw s3Failure(error, 'ListObjectsV2', formatS3Url({ bucket, key: folderKey }));
    }
    return [...marked].filter(([, done]) => !done).map(([date]) => date).sort();
  }

  const sideFiles: SideFiles = {
    urlOf: (relative) => formatS3Url({ bucket, key: keyOf(relative) }),
    async upload(relative, localPath, contentType) {
      const s3 = getClient();
      const key = keyOf(relative);
      const partSize = options.partSizeBytes ?? 16 * 1024 * 1024;
      const file = hashingBytes(createReadStream(localPath), partSize);
      try {
        await new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: file.stream, ContentType: contentType }, partSize, queueSize: 1 }).done();
        await confirmStored(s3, bucket, key, formatS3Url({ bucket, key }), file.sent());
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw s3Failure(error, 'Upload', formatS3Url({ bucket, key }));
      }
    },
    async list(relativeFolder) {
      const folderKey = `${keyOf(relativeFolder)}/`;
      try {
        return (await listKeys(getClient(), bucket, folderKey)).map((k) => k.slice(folderKey.length)).filter((name) => !name.includes('/'));
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw s3Failure(error, 'ListObjectsV2', formatS3Url({ bucket, key: folderKey }));
      }
    },
    async remove(relatives) {
      try {
        await deleteKeys(getClient(), bucket, relatives.map(keyOf));
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw s3Failure(error, 'DeleteObjects', formatS3Url({ bucket, key: keyOf(relatives[0] ?? '') }));
      }
    },
  };

  return { root: rootUrl, beginPublication, readManifest, isMarked, finishInterrupted, unmarkedDates, sideFiles };
}
