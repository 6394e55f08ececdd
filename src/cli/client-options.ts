import type { Command } from 'commander';
import { createClient, type ChatportClient, type ClientOptions } from '../api/index.js';
import type { Logger } from '../shared/logger.js';
import { ConfigError } from '../shared/errors.js';
import { parseHttpUrl } from '../shared/http-url.js';
import { registerSecret } from '../shared/secrets.js';

/** Client settings as flags or a pipeline file give them; each falls back to its environment variable. */
export interface ClientFlags {
  /** CHATPORT_API_URL. */
  apiUrl?: string | undefined;
  /**
   * The token URL of this same layer; default `<origin of the API URL>/oauth/token` (where the sandbox
   * serves it). CHATPORT_TOKEN_URL applies only when the API URL also comes from the environment.
   */
  tokenUrl?: string | undefined;
  /** CHATPORT_CLIENT_ID. */
  clientId?: string | undefined;
  /** CHATPORT_CLIENT_SECRET. Not offered as a command-line flag: argv is visible to every user of the machine. */
  clientSecret?: string | undefined;
  /** CHATPORT_ACCESS_TOKEN. Not offered as a command-line flag, for the same reason. */
  accessToken?: string | undefined;
  /** Path prefix, e.g. `/v1` for older revisions; default none. */
  pathPrefix?: string | undefined;
}

export type ClientEnv = Record<string, string | undefined>;

const given = (...values: Array<string | undefined>): string | undefined => values.find((v) => v !== undefined && v.trim() !== '')?.trim();

/**
 * Resolves the API client's options from flags, then the environment. Returns the options, or a
 * ConfigError (exit 78) that names the variable or flag to set. Client credentials (id and secret) win
 * over an access token when both are present, because they can be renewed. Secrets are registered so
 * that logs and reports scrub them.
 */
export function resolveClientConfig(flags: ClientFlags, env: ClientEnv): ClientOptions | ConfigError {
  const apiUrlGiven = given(flags.apiUrl);
  const apiUrlText = apiUrlGiven ?? given(env.CHATPORT_API_URL);
  if (apiUrlText === undefined) return new ConfigError('no API URL: set CHATPORT_API_URL or pass --api-url', { field: 'apiUrl' });
  const apiUrl = parseHttpUrl(apiUrlText, 'API URL', apiUrlGiven ? '--api-url' : 'CHATPORT_API_URL');
  if (apiUrl instanceof ConfigError) return apiUrl;

  const clientId = given(flags.clientId, env.CHATPORT_CLIENT_ID);
  const clientSecret = given(flags.clientSecret, env.CHATPORT_CLIENT_SECRET);
  const accessToken = given(flags.accessToken, env.CHATPORT_ACCESS_TOKEN);
  registerSecret(clientSecret);
  registerSecret(accessToken);
  const pathPrefix = given(flags.pathPrefix, env.CHATPORT_API_PATH_PREFIX);
  const base = { apiUrl: apiUrl.href.replace(/\/$/, ''), ...(pathPrefix ? { pathPrefix } : {}) };

  if (clientId !== undefined || clientSecret !== undefined) {
    if (clientId === undefined) return new ConfigError('CHATPORT_CLIENT_SECRET is set but CHATPORT_CLIENT_ID is not (or pass --client-id)', { field: 'clientId' });
    if (clientSecret === undefined) return new ConfigError('CHATPORT_CLIENT_ID is set but CHATPORT_CLIENT_SECRET is not', { field: 'clientSecret' });
    const tokenUrl = resolveTokenUrl(flags, env, apiUrl, apiUrlGiven !== undefined);
    if (tokenUrl instanceof ConfigError) return tokenUrl;
    return { ...base, auth: { kind: 'client-credentials', tokenUrl: tokenUrl.href, clientId, clientSecret } };
  }
  if (accessToken !== undefined) return { ...base, auth: { kind: 'static', accessToken } };
  return new ConfigError('no credentials: set CHATPORT_CLIENT_ID and CHATPORT_CLIENT_SECRET (and CHATPORT_TOKEN_URL unless the token endpoint is <API origin>/oauth/token), or CHATPORT_ACCESS_TOKEN', { field: 'auth' });
}

/**
 * The token URL goes with the API URL it belongs to: a token URL given beside it, else CHATPORT_TOKEN_URL
 * when the API URL came from the environment too, else `<API origin>/oauth/token`. So `--api-url` alone
 * never sends the token request to the environment's (or a pipeline file's) other server.
 */
function resolveTokenUrl(flags: ClientFlags, env: ClientEnv, apiUrl: URL, apiUrlGiven: boolean): URL | ConfigError {
  const given_ = given(flags.tokenUrl);
  const fromEnv = apiUrlGiven ? undefined : given(env.CHATPORT_TOKEN_URL);
  const text = given_ ?? fromEnv ?? new URL('/oauth/token', apiUrl).href;
  return parseHttpUrl(text, 'token URL', given_ ? '--token-url' : fromEnv ? 'CHATPORT_TOKEN_URL' : 'the API URL');
}

/** The connection flags every command that calls the API takes; secrets come only from the environment. */
export function addClientFlags(command: Command): Command {
  return command
    .option('--api-url <url>', 'Management API base URL (default: $CHATPORT_API_URL)')
    .option('--token-url <url>', 'OAuth token URL (default: <origin of --api-url>/oauth/token; without --api-url: $CHATPORT_TOKEN_URL, else <API origin>/oauth/token)')
    .option('--client-id <id>', 'OAuth client id (default: $CHATPORT_CLIENT_ID; the secret is read from $CHATPORT_CLIENT_SECRET)')
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
