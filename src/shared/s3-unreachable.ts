/** How an S3 call failed, for S3 sources and sinks alike (each maps the kind to its own error code). */
import { ChatportError, ConfigError } from './errors.js';

/**
 * Errors the SDK itself retries as transient or throttling whatever their status: S3 answers a request it
 * gave up waiting on with 400 RequestTimeout, and some stores throttle with a 400 SlowDown.
 */
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'SlowDown', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'TooManyRequestsException', 'BandwidthLimitExceeded']);

/**
 * The store could not be reached, or answered 5xx, 408 or 429 (throttling: SlowDown, as some S3-compatible
 * stores send it), or an error the SDK retries as transient, after the SDK's retries. A rerun later may succeed.
 */
export function isUnreachable(error: { name?: string; code?: string }, status: number | undefined): boolean {
  if (TRANSIENT_NAMES.has(error.name ?? '')) return true;
  if (status !== undefined) return status >= 500 || status === 408 || status === 429;
  return typeof error.code === 'string' && /^(E[A-Z]+|UND_ERR)/.test(error.code);
}

/** Error names that mean the credentials themselves (not the request) were refused, or none were found. */
const CREDENTIALS_REFUSED = new Set([
  'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'AccessDenied',
  'AllAccessDisabled', 'CredentialsProviderError',
]);

/**
 * The credentials were refused or lack a permission (401/403), or the SDK's chain found none. A 403 whose
 * code is a throttling one (SlowDown, Throttling) is the store asking to slow down, not a refusal: it is
 * unreachable's, on either side whichever it checks first.
 */
export function isCredentialsRefused(error: { name?: string }, status: number | undefined): boolean {
  if (TRANSIENT_NAMES.has(error.name ?? '')) return false;
  return status === 401 || status === 403 || CREDENTIALS_REFUSED.has(error.name ?? '');
}

/**
 * The continuation token of the next page of the listing `listing` (s3://bucket/prefix). A store that says
 * a page is truncated but gives no token would end the listing early and silently (objects never read,
 * stale files never deleted): that is an error with `code`, the side's "store failing" (exit 69).
 */
export function nextListToken(
  page: { IsTruncated?: boolean; NextContinuationToken?: string }, listing: string, code: 'INPUT_UNAVAILABLE' | 'OUTPUT_UNAVAILABLE',
): string | undefined {
  if (!page.IsTruncated) return undefined;
  if (page.NextContinuationToken) return page.NextContinuationToken;
  throw new ChatportError(`listing ${listing} cannot go on: the S3 store says there are more keys but gives no continuation token`, {
    code, transient: true, details: { uri: listing },
  });
}

/**
 * The SDK found no region (no AWS_REGION, no profile's, none in the settings): it throws a plain Error,
 * before any request, which read as a bug (exit 1) or as a store refusing a write. `target` (s3://…) and
 * `setting` (where the command takes one) say what to fix; undefined for any other error.
 */
export function regionMissing(error: unknown, target: string, setting: string): ConfigError | undefined {
  if (!(error instanceof Error) || error.message !== 'Region is missing') return undefined;
  return new ConfigError(`${target} cannot be used: no S3 region is set; set AWS_REGION, a profile's region, or ${setting}`, { uri: target }, error);
}
