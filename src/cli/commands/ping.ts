import type { Command } from 'commander';
import { isForbiddenError } from '../../api/index.js';
import { IMPORT_SCOPE } from '../../wire/imports.js';
import type { CliContext } from '../context.js';
import { addClientFlags, openClient } from '../client-options.js';
import type { Int64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';

/** Scopes chatport's own operations use (management-api.md §4, decisions.md). */
const CHATPORT_SCOPES = [
  'read:application',
  'read:job',
  ...Object.values(IMPORT_SCOPE),
  'read:user',
  'read:channel',
  'read:channel_membership',
  'read:message',
];

interface PingResult {
  ok: true;
  apiUrl: string;
  apiVersion: string | null;
  auth: 'client-credentials' | 'static';
  /** Scopes of the token response; null for a static token (nothing says which it has). */
  scopes: string[] | null;
  /** Scopes chatport uses that the token lacks; null when unknown. */
  missingScopes: string[] | null;
  tokenLifetimeSeconds: number | null;
  application: { id: Int64; name: string } | null;
}

/**
 * `chatport ping`: obtains a token (checking the credentials), reads the application (checking the
 * API answers), and prints the token's scopes and the server's x-api-version.
 */
export function registerPing(program: Command, ctx: CliContext): void {
  addClientFlags(program.command('ping').description('check the credentials and the API: token scopes, API version'))
    .option('--json', 'print the result as JSON')
    .action(async (options: Record<string, unknown>) => {
      const client = openClient(options, ctx);
      try {
        const token = await client.auth.check(ctx.signal);
        let application: PingResult['application'] = null;
        try {
          const app = await client.application.get({ signal: ctx.signal });
          application = { id: app.id, name: app.name };
        } catch (error) {
          // The credentials work; only reading the application is not allowed. Ping still answers.
          if (!isForbiddenError(error)) throw error;
        }
        const scopes = token?.scopes ?? null;
        const result: PingResult = {
          ok: true,
          apiUrl: String(options.apiUrl ?? ctx.env.CHATPORT_API_URL),
          apiVersion: client.serverInfo.apiVersion ?? null,
          auth: client.auth.kind,
          scopes,
          missingScopes: scopes ? CHATPORT_SCOPES.filter((s) => !scopes.includes(s)) : null,
          tokenLifetimeSeconds: token?.lifetimeSeconds ?? null,
          application,
        };
        ctx.stdout.write(options.json ? `${stringifyJson(result)}\n` : formatPing(result));
      } finally {
        await client.close();
      }
    });
}

function formatPing(r: PingResult): string {
  const lines = [
    'ok: the API accepted the credentials',
    `  API:          ${r.apiUrl} (version ${r.apiVersion ?? 'not announced'})`,
    `  credentials:  ${r.auth === 'static' ? 'access token (CHATPORT_ACCESS_TOKEN)' : `client credentials, token valid ${r.tokenLifetimeSeconds} s`}`,
    `  application:  ${r.application ? `${r.application.name} (id ${r.application.id})` : 'not readable (the token lacks read:application)'}`,
    `  scopes:       ${r.scopes ? r.scopes.join(' ') || '(none)' : 'unknown for an access token'}`,
  ];
  if (r.missingScopes && r.missingScopes.length > 0) lines.push(`  missing:      ${r.missingScopes.join(' ')} (some chatport commands will be refused)`);
  return `${lines.join('\n')}\n`;
}
