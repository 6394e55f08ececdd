import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MEDIA, HEADER } from '../wire/media.js';
import type { HttpError} from './errors.js';
import { clientError, statusError } from './errors.js';
import { parseJsonNoting, stringifyJson, type ParsedJson } from '../shared/lossless-json.js';
import { extremeNumberIn, extremeNumberMessage } from '../shared/json-checks/number-range.js';
import type { WireIds } from './wire-ids.js';

/** One request as the routes see it. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** The served path: without query, without a `/_r` redirect prefix. */
  path: string;
  query: URLSearchParams;
  /** The query string with its `?`, or empty. */
  search: string;
  params: Record<string, string>;
  /** Set by a drop fault: destroy the connection instead of (or half-way through) answering. */
  drop?: 'after-processing' | 'mid-response';
  /** Called right before any byte of a response goes out (persistence flushes its journal here). */
  beforeSend: () => void;
  apiVersion: string;
  /** Store id ↔ wire id, for path ids. */
  ids: WireIds;
}

const SUCCESS_TYPES = [MEDIA.chat, MEDIA.json, MEDIA.chatV1, MEDIA.vndHal, MEDIA.hal] as const;

/** Wire rule 9: on every response. */
export function commonHeaders(apiVersion: string): Record<string, string> {
  return {
    [HEADER.apiVersion]: apiVersion,
    [HEADER.responseToken]: randomBytes(12).toString('hex'),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
    pragma: 'no-cache',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
  };
}

/** Picks the success media type from Accept (highest q among those offered); vnd.chat+json by default. */
export function negotiate(accept: string | undefined): string {
  if (!accept) return MEDIA.chat;
  let best: { type: string; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.trim().split(';');
    const type = rawType!.trim().toLowerCase();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const match = type === '*/*' || type === 'application/*' ? MEDIA.chat : SUCCESS_TYPES.find((t) => t === type);
    if (match && q > 0 && (!best || q > best.q)) best = { type: match, q };
  }
  return best?.type ?? MEDIA.chat;
}

/** Destroys the socket after `bytes` of `body`, having promised all of it (a connection cut mid-response). */
function sendHalfThenDrop(ctx: Ctx, body: Buffer): void {
  ctx.res.write(body.subarray(0, Math.floor(body.length / 2)), () => ctx.req.socket.destroy());
}

function send(ctx: Ctx, status: number, headers: Record<string, string>, body: Buffer | undefined): void {
  ctx.beforeSend();
  if (ctx.drop === 'after-processing') {
    ctx.req.socket.destroy();
    return;
  }
  const all = { ...commonHeaders(ctx.apiVersion), ...headers };
  if (body !== undefined) all['content-length'] = String(body.length);
  // Set one by one (not through writeHead) so the recorder can read what was sent, e.g. Retry-After.
  for (const [name, value] of Object.entries(all)) ctx.res.setHeader(name, value);
  ctx.res.writeHead(status);
  if (body === undefined || ctx.method === 'HEAD') {
    ctx.res.end();
    return;
  }
  if (ctx.drop === 'mid-response' && body.length > 1) return sendHalfThenDrop(ctx, body);
  ctx.res.end(body);
}

export function sendJson(ctx: Ctx, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const type = negotiate(ctx.req.headers.accept);
  send(ctx, status, { 'content-type': type, ...headers }, Buffer.from(stringifyJson(body)));
}

export function sendError(ctx: Ctx, error: HttpError): void {
  send(ctx, error.status, { 'content-type': MEDIA.json, ...error.headers }, Buffer.from(stringifyJson(error.body)));
}

export function sendEmpty(ctx: Ctx, status: number, headers: Record<string, string> = {}): void {
  send(ctx, status, { 'content-length': '0', ...headers }, undefined);
}

/** Reads a JSON request body (any `*json*` media type), bounded in size; malformed → 400. */
export async function readJson(ctx: Ctx, limitBytes = 1 << 20): Promise<unknown> {
  const type = (ctx.req.headers['content-type'] ?? '').toLowerCase();
  if (!type.includes('json')) throw clientError(`expected a JSON body (${MEDIA.chat}), got content-type '${type || 'none'}'`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw statusError(413, `request body larger than ${limitBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw clientError('the request body is empty; a JSON object was expected');
  let parsed: ParsedJson;
  try {
    parsed = parseJsonNoting(text, 'bigint');
  } catch (error) {
    throw clientError(`the request body is not valid JSON (${(error as Error).message})`);
  }
  // JSON.parse turns 1e400 into Infinity (stored as null) and 1e-400 into 0: refused, not kept changed.
  // The parse already noted whether any number may be such; only then is the text looked through.
  const extreme = parsed.mayHoldExtremeNumber ? extremeNumberIn(text) : undefined;
  if (extreme) throw clientError(`the request body is refused: ${extremeNumberMessage(extreme)}`);
  return parsed.value;
}

/** Drains the request body so keep-alive connections stay usable after an early answer. */
export function discardBody(ctx: Ctx): void {
  if (!ctx.req.complete) ctx.req.resume();
}
