import type { Command } from 'commander';
import { createClient, type ChatportClient, type ClientOptions } from '../api/index.js';
import type { Logger } from '../shared/logger.js';
import { ConfigError } from '../shared/errors.js';
import { registerSecret } from '../shared/secrets.js';

/** Client settings as flags or a pipeline file give them; each falls back to its environment variable. */
export interface ClientFlags {
  /** CHAT_API_URL. */
  apiUrl?: string | undefined;
  /** CHAT_TOKEN_URL; default `<origin of the API URL>/oauth/token` (where the sandbox serves it). */
  tokenUrl?: string | undefined;
  /** CHAT_CLIENT_ID. */
  clientId?: string | undefined;
  /** CHAT_CLIENT_SECRET. Not offered as a command-line flag: argv is visible to every user of the machine. */
  clientSecret?: string | undefined;
  /** CHAT_ACCESS_TOKEN. Not offered as a command-line flag, for the same reason. */
  accessToken?: string | undefined;
  /** Path prefix, e.g. `/v1` for older revisions; default none. */
  pathPrefix?: string | undefined;
}

export type ClientEnv = Record<string, string | undefined>;

const given = (...values: Array<string | undefined>): string | undefined => values.find((v) => v !== undefined && v.trim() !== '')?.trim();

function parseHttpUrl(value: string, what: string, source: string): URL | ConfigError {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // fall through to the error below
  }
  return new ConfigError(`${what} "${value}" (from ${source}) is not an http(s) URL`, { field: what, source });
}

/**
 * Resolves the API client's options from flags, then the environment. Returns the options, or a
 * ConfigError (exit 78) that names the variable or flag to set. Client credentials (id and secret) win
 * over an access token when both are present, because they can be renewed. Secrets are registered so
 * that logs and reports scrub them.
 */
export function resolveClientConfig(flags: ClientFlags, env: ClientEnv): ClientOptions | ConfigError {
  const apiUrlText = given(flags.apiUrl, env.CHAT_API_URL);
  if (apiUrlText === undefined) return new ConfigError('no API URL: set CHAT_API_URL or pass --api-url', { field: 'apiUrl' });
  const apiUrl = parseHttpUrl(apiUrlText, 'API URL', flags.apiUrl ? '--api-url' : 'CHAT_API_URL');
  if (apiUrl instanceof ConfigError) return apiUrl;

  const clientId = given(flags.clientId, env.CHAT_CLIENT_ID);
  const clientSecret = given(flags.clientSecret, env.CHAT_CLIENT_SECRET);
  const accessToken = given(flags.accessToken, env.CHAT_ACCESS_TOKEN);
  registerSecret(clientSecret);
  registerSecret(accessToken);
  const pathPrefix = given(flags.pathPrefix, env.CHAT_API_PATH_PREFIX);
  const base = { apiUrl: apiUrl.href.replace(/\/$/, ''), ...(pathPrefix ? { pathPrefix } : {}) };

  if (clientId !== undefined || clientSecret !== undefined) {
    if (clientId === undefined) return new ConfigError('CHAT_CLIENT_SECRET is set but CHAT_CLIENT_ID is not (or pass --client-id)', { field: 'clientId' });
    if (clientSecret === undefined) return new ConfigError('CHAT_CLIENT_ID is set but CHAT_CLIENT_SECRET is not', { field: 'clientSecret' });
    const tokenUrlText = given(flags.tokenUrl, env.CHAT_TOKEN_URL) ?? new URL('/oauth/token', apiUrl).href;
    const tokenUrl = parseHttpUrl(tokenUrlText, 'token URL', flags.tokenUrl ? '--token-url' : 'CHAT_TOKEN_URL');
    if (tokenUrl instanceof ConfigError) return tokenUrl;
    return { ...base, auth: { kind: 'client-credentials', tokenUrl: tokenUrl.href, clientId, clientSecret } };
  }
  if (accessToken !== undefined) return { ...base, auth: { kind: 'static', accessToken } };
  return new ConfigError('no credentials: set CHAT_CLIENT_ID and CHAT_CLIENT_SECRET (and CHAT_TOKEN_URL), or CHAT_ACCESS_TOKEN', { field: 'auth' });
}

/** The connection flags every command that calls the API takes; secrets come only from the environment. */
export function addClientFlags(command: Command): Command {
  return command
    .option('--api-url <url>', 'Management API base URL (default: $CHAT_API_URL)')
    .option('--token-url <url>', 'OAuth token URL (default: $CHAT_TOKEN_URL, else <api origin>/oauth/token)')
    .option('--client-id <id>', 'OAuth client id (default: $CHAT_CLIENT_ID; the secret is read from $CHAT_CLIENT_SECRET)')
    .option('--path-prefix <prefix>', 'path prefix for older API revisions, e.g. /v1');
}

/** Picks the client flags out of commander's parsed options. */
export function clientFlagsOf(options: Record<string, unknown>): ClientFlags {
  const text = (key: string) => (typeof options[key] === 'string' ? (options[key] as string) : undefined);
  return { apiUrl: text('apiUrl'), tokenUrl: text('tokenUrl'), clientId: text('clientId'), pathPrefix: text('pathPrefix') };
}

/** Resolves the options (throwing the ConfigError) and creates a client logging to the command's logger. */
export function openClient(options: Record<string, unknown>, ctx: { env: ClientEnv; logger: Logger }): ChatportClient {
  const config = resolveClientConfig(clientFlagsOf(options), ctx.env);
  if (config instanceof ConfigError) throw config;
  return createClient(config, { logger: ctx.logger });
}
