import { closest } from '../shared/closest-name.js';

/**
 * The environment variables of the connection settings. Wave 1 documented `CHAT_*` names while the bundled
 * pipelines read `CHATPORT_*`; the `CHATPORT_*` names are the ones now, and the old names are still read
 * when the new one is absent, with one warning naming the new name, so existing set-ups keep working.
 */
export const CONNECTION_VARIABLES = ['API_URL', 'TOKEN_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'ACCESS_TOKEN', 'API_PATH_PREFIX'] as const;

const NEW_PREFIX = 'CHATPORT_';

/** Every CHATPORT_* variable chatport itself reads (pipeline files may interpolate any others). */
const READ_VARIABLES = [...CONNECTION_VARIABLES, 'LOG_LEVEL', 'TERMINATION_LOG', 'SANDBOX_CLIENT_SECRET', 'MATTERMOST_SORT_BYTES'];
const OLD_PREFIX = 'CHAT_';

const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * Fills each absent `CHATPORT_*` connection variable from its old `CHAT_*` name, in place (pipeline files
 * interpolate from this same environment), and returns the old names it used. The caller warns once.
 */
export function adoptOldConnectionNames(env: Record<string, string | undefined>): Array<{ old: string; name: string }> {
  const adopted: Array<{ old: string; name: string }> = [];
  for (const variable of CONNECTION_VARIABLES) {
    const name = NEW_PREFIX + variable;
    const old = OLD_PREFIX + variable;
    if (isSet(env[name]) || !isSet(env[old])) continue;
    env[name] = env[old];
    adopted.push({ old, name });
  }
  return adopted;
}

/** The one warning for old names in use: each old name with the new name to use instead. */
export function oldNamesWarning(adopted: Array<{ old: string; name: string }>): string {
  const pairs = adopted.map(({ old, name }) => `${old} → ${name}`).join(', ');
  return `old environment variable name(s) read: ${pairs}; rename them (the old names will stop working in a later release)`;
}

/**
 * CHATPORT_* variables set whose name is a near miss of one chatport reads that is not set: a typo in a
 * container's environment would otherwise pass unnoticed (a default used, or "no API URL"). Other
 * CHATPORT_* names are left alone: pipeline files may interpolate them.
 */
export function misspeltVariables(env: Record<string, string | undefined>): Array<{ name: string; meant: string }> {
  const found: Array<{ name: string; meant: string }> = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith(NEW_PREFIX) || !isSet(env[name])) continue;
    const suffix = name.slice(NEW_PREFIX.length);
    if (READ_VARIABLES.includes(suffix)) continue;
    const near = closest(suffix, READ_VARIABLES);
    if (near !== undefined && !isSet(env[NEW_PREFIX + near])) found.push({ name, meant: NEW_PREFIX + near });
  }
  return found;
}

/** The one warning for misspelt names: each with the name it likely meant. */
export function misspeltWarning(misspelt: Array<{ name: string; meant: string }>): string {
  const names = misspelt.map(({ name, meant }) => `${name} (did you mean ${meant}?)`).join(', ');
  return `environment variable(s) set that are not a variable chatport reads: ${names}`;
}

/** The variables that point chatport at a sandbox (or any server with client credentials). */
export function connectionEnvFor(server: { url: string; credentials: { clientId: string; clientSecret: string } }): Record<string, string> {
  return {
    CHATPORT_API_URL: server.url,
    CHATPORT_CLIENT_ID: server.credentials.clientId,
    CHATPORT_CLIENT_SECRET: server.credentials.clientSecret,
  };
}

/** An environment with no connection variable of either name left: nothing of the caller's shell leaks in. */
export function withoutConnectionVariables(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const names = new Set(CONNECTION_VARIABLES.flatMap((v) => [NEW_PREFIX + v, OLD_PREFIX + v]));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
}

/** Shell `export` lines, single-quoted so that any value pastes safely. */
export function exportLines(vars: Record<string, string>): string {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  return Object.entries(vars).map(([name, value]) => `export ${name}=${quote(value)}\n`).join('');
}
