/**
 * Secrets never reach logs, errors or reports. Two layers:
 * 1. known secret values (client secret, tokens, S3 keys) are registered when they are read, and every
 *    log line and report is scrubbed of them;
 * 2. fields whose names look secret are redacted by name (see `SECRET_KEY_PATTERN`).
 */
/** Each value with its holders: Infinity for one registered for good, else the open leases (holdSecret). */
const known = new Map<string, number>();

export const REDACTED = '[REDACTED]';

/** Remember a secret value so that `scrubSecrets` removes it wherever it appears. */
export function registerSecret(value: string | undefined | null): void {
  // Very short values would scrub innocent text; real secrets are longer.
  if (value && value.length >= 6) known.set(value, Infinity);
}

/**
 * Scrub a value while it is in use (an access token), until the returned release: a service making a
 * client per run would otherwise scrub every line against every token it ever had. Counted, so two
 * clients given the same token by the server keep it scrubbed until both let it go.
 */
export function holdSecret(value: string): () => void {
  if (value.length < 6) return () => undefined;
  known.set(value, (known.get(value) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const holders = (known.get(value) ?? 1) - 1;
    if (holders > 0) known.set(value, holders);
    else known.delete(value);
  };
}

/** How many values are registered (tests: the list stays bounded). */
export function knownSecretCount(): number {
  return known.size;
}

/** Replace every registered secret value, and bearer/basic credentials, in a piece of text. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const secret of known.keys()) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`);
}

export const SECRET_KEY_PATTERN = /secret|password|passwd|token|authorization|api[-_]?key|credential|signature/i;

/**
 * Registers chatport's and the AWS SDK's environment variables whose names look secret (AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, CHATPORT_CLIENT_SECRET, …): the SDK reads its own, and an error it raises may quote one
 * chatport never read. Other programs' variables are left alone: a value such as `enabled` would be scrubbed
 * from every line.
 */
export function registerSecretsOfEnvironment(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) if (/^(AWS|CHATPORT|CHAT)_/.test(name) && SECRET_KEY_PATTERN.test(name) && !NAMES_A_LOCATION.test(name)) registerSecret(value);
}

/**
 * A secret-sounding variable that holds where a secret is, not the secret (CHATPORT_TOKEN_URL,
 * AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CONTAINER_CREDENTIALS_FULL_URI): scrubbed, every error naming that URL or
 * file (a token URL that is not http(s), a token file the SDK cannot read) would hide what to fix.
 */
const NAMES_A_LOCATION = /_(URL|URI|FILE|PATH)$/;

/** Deep copy of a value with secret-looking keys redacted and registered values scrubbed. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[…]';
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY_PATTERN.test(k) && v != null ? REDACTED : redactValue(v, depth + 1);
    return out;
  }
  return value;
}
