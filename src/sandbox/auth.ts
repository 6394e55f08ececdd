import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { MEDIA } from '../wire/media.js';
import { HttpError, forbidden, unauthorized } from './errors.js';

/** Every scope of management-api.md §5 (plus update:message and read:thread, which decisions.md gives PATCH /messages/{id} and the thread operations); a token asked for without `scope` gets all of them. */
export const ALL_SCOPES = [
  'read:application', 'update:application', 'read:channel', 'create:channel', 'update:channel', 'delete:channel',
  'create:channel_event', 'read:channel_invite', 'create:channel_invite', 'create:keystrokes', 'read:channel_membership',
  'create:channel_membership', 'delete:channel_membership', 'read:channel_moderator', 'create:channel_moderator',
  'read:chat_session', 'read:message', 'create:message', 'update:message', 'delete:message', 'read:user', 'create:user', 'update:user',
  'delete:user', 'read:channels', 'read:notifications', 'read:user_secret', 'update:user_secret', 'delete:user_secret',
  'read:job', 'read:thread', 'read:read_receipt', 'read:user_session', 'delete:channel_moderator',
  'read:runtime', 'update:runtime', 'read:function', 'create:function_version', 'read:function_version', 'read:function_invocation',
] as const;

export interface TokenInfo {
  clientId: string;
  scopes: ReadonlySet<string>;
  expiresAt: number;
}

/** Opaque random bearer tokens with their expiry and scopes, kept in memory (a restart logs everyone out). */
export class TokenStore {
  private readonly tokens = new Map<string, TokenInfo>();

  constructor(
    readonly clientId: string,
    private readonly clientSecret: string,
    private readonly defaultLifetimeSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {}

  issue(scopes: readonly string[] = ALL_SCOPES, lifetimeSeconds = this.defaultLifetimeSeconds): string {
    this.sweep();
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, { clientId: this.clientId, scopes: new Set(scopes), expiresAt: this.clock() + lifetimeSeconds * 1000 });
    return token;
  }

  /** The token's grant, or 401 when the header is missing, malformed, unknown or expired. */
  authenticate(req: IncomingMessage): TokenInfo {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const info = match ? this.tokens.get(match[1]!) : undefined;
    if (!info || info.expiresAt <= this.clock()) throw unauthorized();
    return info;
  }

  /** The client id a request speaks for (rate limits are per client), without judging validity. */
  clientOf(req: IncomingMessage): string {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    if (bearer) return this.tokens.get(bearer[1]!)?.clientId ?? 'unknown-token';
    const basic = parseBasic(header);
    return basic?.id ?? `addr:${req.socket.remoteAddress ?? '?'}`;
  }

  checkClient(id: string, secret: string): boolean {
    return safeEqual(id, this.clientId) && safeEqual(secret, this.clientSecret);
  }

  /** Tokens live until they expire; drop the expired ones now and then so the map stays small. */
  private sweep(): void {
    if (this.tokens.size < 1000) return;
    const now = this.clock();
    for (const [token, info] of this.tokens) if (info.expiresAt <= now) this.tokens.delete(token);
  }
}

/** 403 unless the grant holds every scope the operation needs. */
export function requireScopes(info: TokenInfo, scopes: readonly string[]): void {
  for (const scope of scopes) if (!info.scopes.has(scope)) throw forbidden();
}

export function parseBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
  const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** OAuth 2.0 errors of the token endpoint (RFC 6749 §5.2), `application/json`. */
function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(status, { error, error_description: description }, headers);
}

/**
 * POST /oauth/token (decisions.md "Authentication"): client credentials by HTTP Basic (or, leniently,
 * `client_id`/`client_secret` form fields), `grant_type=client_credentials`, optional `scope` to ask for
 * fewer scopes. Answers `{access_token, token_type: "bearer", expires_in, scope}`.
 */
export function handleTokenRequest(
  tokens: TokenStore,
  lifetimeSeconds: number,
  authorization: string | undefined,
  contentType: string | undefined,
  bodyText: string,
): { status: number; body: Record<string, unknown> } {
  if (!(contentType ?? '').toLowerCase().startsWith(MEDIA.form))
    throw oauthError(400, 'invalid_request', `the token request body must be ${MEDIA.form}`);
  const form = new URLSearchParams(bodyText);
  const basic = authorization ? parseBasic(authorization) : undefined;
  const id = basic?.id ?? form.get('client_id') ?? undefined;
  const secret = basic?.secret ?? form.get('client_secret') ?? undefined;
  if (id === undefined || secret === undefined || !tokens.checkClient(id, secret))
    throw oauthError(401, 'invalid_client', 'client authentication failed', { 'www-authenticate': 'Basic realm="oauth"' });
  const grant = form.get('grant_type');
  if (grant !== 'client_credentials')
    throw oauthError(400, 'unsupported_grant_type', `grant_type must be client_credentials, got '${grant ?? ''}'`);
  const asked = form.get('scope');
  let scopes: string[] = [...ALL_SCOPES];
  if (asked !== null && asked.trim() !== '') {
    scopes = asked.trim().split(/\s+/);
    const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) throw oauthError(400, 'invalid_scope', `unknown scope(s): ${unknown.join(' ')}`);
  }
  const accessToken = tokens.issue(scopes, lifetimeSeconds);
  return {
    status: 200,
    body: { access_token: accessToken, token_type: 'bearer', expires_in: lifetimeSeconds, scope: scopes.join(' ') },
  };
}
