/**
 * The sink's S3 failures as errors a scheduler can act on, classified once for every S3 call (a
 * middleware of the sink's client, s3-client.ts):
 * - the store cannot be reached, or keeps failing or throttling (5xx, 429 after the SDK's retries), or
 *   received other bytes than were sent (BadDigest: damaged on the way, which a retry clears): OUTPUT_UNAVAILABLE (69);
 * - the credentials are refused or lack a permission: OUTPUT_FORBIDDEN (77);
 * - anything else the store refuses (a missing bucket, a bad request): OUTPUT_WRITE_FAILED (73).
 * A missing key passes through as it is: callers read it as "absent". Messages carry the SDK's error name
 * and status, never its text, so no key or signature from a response reaches a log.
 */
import { ChatportError, isChatportError } from '../shared/errors.js';
import { isCredentialsRefused, isUnreachable, regionMissing } from '../shared/s3-unreachable.js';

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The store's own integrity check (Content-MD5, s3-client.ts) refused what it received. */
function isBadDigest(error: SdkError): boolean {
  return error.name === 'BadDigest' || error.name === 'InvalidDigest' || error.code === 'BadDigest';
}

function isMissingKey(error: SdkError): boolean {
  return error.name === 'NoSuchKey' || error.name === 'NotFound';
}


/** `error` of the S3 command `command` on `target` (s3://bucket/key) as the error to throw. */
export function s3Failure(error: unknown, command: string, target: string): unknown {
  if (isChatportError(error) || !(error instanceof Error)) return error;
  const noRegion = regionMissing(error, target, '--s3-region (or s3.region in the export pipeline file)');
  if (noRegion) return noRegion;
  const sdk = error as SdkError;
  if (isMissingKey(sdk)) return error;
  const status = sdk.$metadata?.httpStatusCode;
  const said = `${sdk.code ?? sdk.name ?? 'Error'}${status === undefined ? '' : `, ${status}`}`;
  const what = `S3 ${command.replace(/Command$/, '')} of ${target}`;
  const details = { target, command, s3Error: sdk.code ?? sdk.name ?? null, ...(status === undefined ? {} : { status }) };
  if (isUnreachable(sdk, status))
    return new ChatportError(`${what} failed: the store is unreachable or failing (${said}); check AWS_ENDPOINT_URL_S3 or the network`, {
      code: 'OUTPUT_UNAVAILABLE', transient: true, details, cause: error,
    });
  if (isBadDigest(sdk))
    return new ChatportError(
      `${what} failed: the bytes the store received are not the bytes sent (their MD5 differs from the Content-MD5 chatport computed), so it kept none of them; a rerun sends them again (if it persists, check the S3 endpoint or a proxy before it) (${said})`,
      { code: 'OUTPUT_UNAVAILABLE', transient: true, details, cause: error },
    );
  if (isCredentialsRefused(sdk, status))
    return new ChatportError(`${what} was refused (${said}): the S3 credentials are wrong, expired or lack a permission for this bucket`, {
      code: 'OUTPUT_FORBIDDEN', details, cause: error,
    });
  const why = sdk.name === 'NoSuchBucket' ? 'the bucket does not exist' : 'the store refused it';
  return new ChatportError(`${what} failed: ${why} (${said})`, { code: 'OUTPUT_WRITE_FAILED', details, cause: error });
}

/**
 * A key whose bytes, read back, are not the bytes sent (same size: s3rver ignores Content-MD5 and keeps
 * bytes damaged on the way). The same fault as BadDigest, and a rerun sends them again.
 */
export function storedBytesDiffer(target: string, storedMd5: string, sentMd5: string): ChatportError {
  return new ChatportError(
    `the bytes stored at ${target} are not the bytes sent (MD5 ${storedMd5}, sent ${sentMd5}): the store kept bytes damaged on the way; a rerun sends them again (if it persists, check the S3 endpoint or a proxy before it)`,
    { code: 'OUTPUT_UNAVAILABLE', transient: true, details: { target, storedMd5, sentMd5 } },
  );
}

/**
 * A step of publishing to S3 that failed: the step named, the classified cause's code and words kept
 * (an unreachable store stays 69, refused credentials 77), anything else OUTPUT_WRITE_FAILED.
 */
export function s3PublishFailure(folderUrl: string, step: string, error: unknown, details: Record<string, unknown>): ChatportError {
  const cause = isChatportError(error) ? error : undefined;
  return new ChatportError(`publishing ${folderUrl} failed while ${step}${cause ? `: ${cause.message}` : ''}`, {
    code: cause?.code.startsWith('OUTPUT_') ? cause.code : 'OUTPUT_WRITE_FAILED',
    // Network trouble and throttling clear up; a rerun of the same date is safe either way.
    transient: true,
    details: { ...details, step },
    cause: error,
  });
}
