import type { Command } from 'commander';
import { isClientRequestError, type CallSpec, type ChatportClient } from '../../api/index.js';
import { ChatportError } from '../../shared/errors.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import { buildApiCall, parseMethod } from '../api-request.js';
import { addClientFlags, openClient } from '../client-options.js';
import type { CliContext } from '../context.js';

interface ApiCommandOptions {
  data?: string;
  form?: string[];
  field?: string[];
  paginate?: boolean;
  json?: boolean;
  [flag: string]: unknown;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `chatport api <METHOD> <path>`: any operation of the Management API, with the client's token, retries,
 * redirects and errors (docs/api-cli.md). The answer's JSON goes to stdout; an error's §7 body to stderr,
 * with the exit codes of every other command.
 */
export function registerApi(program: Command, ctx: CliContext): void {
  addClientFlags(
    program
      .command('api')
      .description('call any operation of the Management API (like gh api): chatport api GET /users --paginate')
      .argument('<method>', 'GET, POST, PUT, PATCH, DELETE or HEAD')
      .argument('<path>', 'a path under the API root, with or without a query: /users?name=alice'),
  )
    .option('-d, --data <json>', 'JSON body: the text, @file, or - for standard input (PATCH sends it as a merge patch)')
    .option('--form <key=value>', 'multipart form part: key=value, or key=@file for a file part (repeatable)', collect)
    .option('-F, --field <key=value>', 'query parameter (repeatable)', collect)
    .option('--paginate', 'follow the pages (offset or cursor) and print the items of every page as one JSON array')
    .option('--json', 'compact output: one line of JSON, or with --paginate one item per line (NDJSON)')
    .action(async (method: string, path: string, options: ApiCommandOptions) => {
      // The command's signal on every call: SIGTERM or Ctrl-C also stops a retry's wait (exit 143/130).
      const spec = { ...(await buildApiCall(parseMethod(method), path, options, () => readStdin(process.stdin))), signal: ctx.signal };
      const client = openClient(options, ctx);
      try {
        if (options.paginate) await printPages(client, spec, options.json === true, ctx);
        else await printOne(client, spec, options.json === true, ctx);
      } catch (error) {
        throw asCommandError(error);
      } finally {
        await client.close();
      }
    });
}

async function printOne(client: ChatportClient, spec: CallSpec, compact: boolean, ctx: CliContext): Promise<void> {
  const response = await client.send(spec);
  const text = await response.body.text();
  if (text.trim() === '') return;
  const type = response.headers['content-type'];
  if (typeof type === 'string' && !type.includes('json')) {
    ctx.stdout.write(text);
    return;
  }
  ctx.stdout.write(`${format(parseJsonExact(text, 'bigint'), compact)}\n`);
}

/** Every page, following `_links.next`, the items of the one `_embedded` list each page has. */
async function printPages(client: ChatportClient, first: CallSpec, ndjson: boolean, ctx: CliContext): Promise<void> {
  if (first.method !== 'GET') throw new ChatportError('--paginate follows the pages of a GET list', { code: 'USAGE' });
  const items: unknown[] = [];
  let spec: CallSpec = first;
  const seen = new Set<string>();
  for (;;) {
    const response = await client.send(spec);
    const page = parseJsonExact(await response.body.text(), 'bigint') as { _embedded?: Record<string, unknown[]>; _links?: { next?: { href?: string } } };
    const lists = Object.values(page._embedded ?? {});
    const pageItems = lists.length === 1 && Array.isArray(lists[0]) ? lists[0] : [];
    if (ndjson) for (const item of pageItems) ctx.stdout.write(`${stringifyJson(item)}\n`);
    else items.push(...pageItems);
    const next = page._links?.next?.href;
    if (next === undefined || pageItems.length === 0) break;
    const url = new URL(next, response.url);
    if (seen.has(url.href)) break;
    seen.add(url.href);
    spec = { ...first, operation: `${first.operation} (next page)`, url, path: undefined, query: undefined };
  }
  if (!ndjson) ctx.stdout.write(`${format(items, false)}\n`);
}

function format(value: unknown, compact: boolean): string {
  return compact ? stringifyJson(value) : stringifyJson(value, 2);
}

/**
 * A 4xx other than 401/403/404/429 is what the request asked for, refused: the caller's data (exit 65), not
 * a chatport bug, whatever the client says of a revision it does not know.
 */
function asCommandError(error: unknown): unknown {
  if (!isClientRequestError(error)) return error;
  const said = [error.error, error.description].filter(Boolean).join(' — ');
  return new ChatportError(`${error.method} ${error.path} was refused with ${error.status ?? '4xx'}${said ? `: ${said}` : ''}`, {
    code: 'DATA_INVALID',
    details: { status: error.status, ...(error.error ? { error: error.error } : {}), ...(error.description ? { description: error.description } : {}) },
  });
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}
