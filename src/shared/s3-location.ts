/**
 * S3 addresses and connection settings shared by the S3 source and the S3 sink. No SDK here: each of those
 * two stages builds its own client from these plain values (one SDK, one place per stage).
 */
import { homedir } from 'node:os';
import { ConfigError, UsageError } from './errors.js';
import { registerSecret } from './secrets.js';

export interface S3Location {
  bucket: string;
  /** The key or key prefix; `''` for the whole bucket. Never starts with `/`. */
  key: string;
}

/** True for `s3://…` strings. */
export function isS3Url(value: string): boolean {
  return /^s3:\/\//i.test(value);
}

/** `s3://bucket/some/key` → `{bucket, key}`; throws a UsageError naming the URL when it is not one. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(url);
  if (!match || !match[1]) throw new UsageError(`not an S3 URL: "${url}" (expected s3://bucket/key)`, { url });
  return { bucket: match[1], key: match[2] ?? '' };
}

export function formatS3Url(location: S3Location): string {
  return `s3://${location.bucket}/${location.key}`;
}

/**
 * A custom S3 endpoint as the SDK needs it: an absolute http(s) URL with a host. Anything else (most often
 * `127.0.0.1:9000` or `minio:9000`, the scheme forgotten) fails every S3 call as "unreachable", which a
 * scheduler retries: it is configuration (exit 78), said once before any work. `source` names where it was
 * set; the value is shown without its user and password, which may be credentials.
 */
export function checkS3Endpoint(endpoint: string, source: string): void {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return;
  const shown = endpoint.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@]*@/i, '$1[REDACTED]@');
  throw new ConfigError(`${source} must be an http:// or https:// URL of the S3-compatible store, e.g. http://127.0.0.1:9000; got "${shown}"`, { source });
}

/**
 * How to reach S3 or an S3-compatible store. Everything is optional: by default the AWS SDK's own chains
 * decide (credentials from env, profile, SSO, instance role; region from `AWS_REGION` or the profile).
 */
export interface S3ConnectionOptions {
  /** Region; default: the SDK's region chain, or `us-east-1` when an `endpoint` is set and none is found. */
  region?: string;
  /** A custom endpoint for S3-compatible stores (MinIO, Ceph, R2, s3rver), e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`). Default: `true` with a custom `endpoint`, else `false`. */
  forcePathStyle?: boolean;
  /**
   * The SDK's `requestChecksumCalculation` and `responseChecksumValidation`. Many S3-compatible stores
   * mishandle the SDK's newer `WHEN_SUPPORTED` default (s3rver stores streamed uploads with their
   * aws-chunked framing, silently corrupting them). Default: `WHEN_REQUIRED` with a custom `endpoint`,
   * else `WHEN_SUPPORTED`.
   */
  checksums?: 'WHEN_REQUIRED' | 'WHEN_SUPPORTED';
  /** Static credentials; default: the SDK's default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** A connection silent this long (nothing sent or received) fails the attempt. Default 60 s. */
  idleTimeoutMs?: number;
}

/**
 * The SDK sets no timeout of its own: a store that accepts the connection and never answers would hang a
 * scheduled job forever. The API client's bounds (src/api/http/dispatcher.ts) apply to S3 too; a read
 * broken by the idle limit resumes where it stopped (resumable-read.ts).
 */
const S3_CONNECT_TIMEOUT_MS = 10_000;
const S3_IDLE_TIMEOUT_MS = 60_000;

/**
 * The S3Client configuration both stages use, from the shared connection settings; registers the secret
 * parts for scrubbing. Kept free of the SDK itself so that `shared` stays light (see eslint.config.js).
 */
export function s3ClientConfig(options: S3ConnectionOptions = {}) {
  // The SDK's documented switch for its multi-line NodeVersionSupportWarning, which it prints as plain text
  // on stderr among chatport's JSON log lines; the supported Node versions are the project's concern (README).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  homeForSdk(process.env);
  const resolved = resolveS3Connection(options);
  registerSecret(resolved.credentials?.secretAccessKey);
  registerSecret(resolved.credentials?.sessionToken);
  return {
    region: resolved.region,
    endpoint: resolved.endpoint,
    forcePathStyle: resolved.forcePathStyle,
    credentials: resolved.credentials,
    requestChecksumCalculation: resolved.checksums,
    responseChecksumValidation: resolved.checksums,
    requestHandler: { connectionTimeout: S3_CONNECT_TIMEOUT_MS, socketTimeout: options.idleTimeoutMs ?? S3_IDLE_TIMEOUT_MS },
  };
}

/**
 * The SDK looks for its profile files under HOME and, without one, asks the OS, which throws for a user
 * with no passwd entry (a container run as an arbitrary UID, a scheduler task whose environment was
 * replaced): uncaught inside the SDK, the job died with exit 1. Such a user has no profile files: a home
 * that does not exist lets the SDK find none and go on down its credential chain.
 */
export function homeForSdk(env: Record<string, string | undefined>, osHome: () => string = homedir): void {
  if (env.HOME) return;
  try {
    osHome();
  } catch {
    env.HOME = '/nonexistent';
  }
}

/** The normalized connection settings. */
export interface ResolvedS3Connection {
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  checksums: 'WHEN_REQUIRED' | 'WHEN_SUPPORTED';
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function resolveS3Connection(options: S3ConnectionOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedS3Connection {
  const custom = options.endpoint !== undefined && options.endpoint !== '';
  const envRegion = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return {
    // Only fill a region for custom endpoints: for AWS the SDK's chain (profile files included) decides.
    region: options.region ?? (custom && !envRegion ? 'us-east-1' : undefined),
    endpoint: custom ? options.endpoint : undefined,
    forcePathStyle: options.forcePathStyle ?? custom,
    checksums: options.checksums ?? (custom ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED'),
    credentials: options.credentials,
  };
}
