import { createReadStream, statSync } from 'node:fs';
import type { Route } from '../router.js';
import type { SandboxApp } from '../app.js';
import { HttpError, notFound } from '../errors.js';
import { commonHeaders, discardBody, sendJson, type Ctx } from '../http.js';
import type { ExportKind } from '../exports.js';
import { renderJob } from './jobs.js';

function startExport(ctx: Ctx, app: SandboxApp, kind: ExportKind): void {
  // The request body is "not shown" (§4); whatever comes is ignored.
  discardBody(ctx);
  const type = kind === 'messages' ? 'MESSAGE_ANALYTICS_EXPORT' : 'USER_ANALYTICS_EXPORT';
  const job = app.jobs.submit(type, app.exports.work(kind, app.store));
  sendJson(ctx, 202, renderJob(app, job));
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`; one range only (several are answered whole, as RFC 9110 allows). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (end < start && match[2] !== '') return undefined;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * RFC 9110 §13.1.5: an If-Range holds when it names the current entity tag (strong comparison: a weak
 * tag never holds) or exactly the current Last-Modified date. Absent, it holds.
 */
export function ifRangeHolds(header: string | string[] | undefined, etag: string, modified: Date): boolean {
  if (header === undefined) return true;
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Math.floor(modified.getTime() / 1000) * 1000;
}

function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, q] = part.trim().split(';');
    return coding?.trim().toLowerCase() === 'gzip' && !(q && /q=0(\.0*)?$/.test(q.trim()));
  });
}

/**
 * GET/HEAD /_exports/<token>/<file>: no bearer token (a pre-signed URL). Range requests give 206 with
 * Content-Range, so an interrupted download resumes (If-Range with the ETag or Last-Modified sent here
 * keeps a resume to the same version); `Accept-Encoding: gzip` gives the gzip
 * representation (ranges then count its bytes, and its ETag differs).
 */
async function download(ctx: Ctx, app: SandboxApp): Promise<void> {
  const found = app.exports.resolve(ctx.params.token ?? '', ctx.params.name ?? '');
  if (found === undefined) throw notFound();
  if (found === 'expired') throw new HttpError(403, { error: 'access_denied', error_description: 'the download link has expired' });
  const gzip = acceptsGzip(ctx.req.headers['accept-encoding']);
  const path = gzip ? await app.exports.gzipped(found) : found;
  const stat = statSync(path);
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}${gzip ? '-gz' : ''}"`;
  const headers: Record<string, string> = {
    ...commonHeaders(ctx.apiVersion),
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${ctx.params.name}"`,
    'accept-ranges': 'bytes',
    etag,
    'last-modified': stat.mtime.toUTCString(),
    vary: 'Accept-Encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  };
  // If-Range: the Range applies only to the version the client names; any other gets the whole file.
  const range = ifRangeHolds(ctx.req.headers['if-range'], etag, stat.mtime) ? parseRange(ctx.req.headers.range, stat.size) : undefined;
  if (range === 'unsatisfiable') {
    throw new HttpError(416, { error: 'ClientError', message: `range not satisfiable; size is ${stat.size}`, timestamp: new Date().toISOString() }, {
      'content-range': `bytes */${stat.size}`,
    });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? stat.size - 1;
  if (range) headers['content-range'] = `bytes ${start}-${end}/${stat.size}`;
  headers['content-length'] = String(Math.max(0, end - start + 1));
  ctx.beforeSend();
  if (ctx.drop === 'after-processing') return void ctx.req.socket.destroy();
  ctx.res.writeHead(range ? 206 : 200, headers);
  if (ctx.method === 'HEAD' || stat.size === 0) return void ctx.res.end();
  // A mid-response drop sends half the promised bytes, then cuts the connection.
  const cut = ctx.drop === 'mid-response';
  const last = cut ? start + Math.floor((end - start) / 2) : end;
  const stream = createReadStream(path, { start, end: last });
  stream.pipe(ctx.res, { end: !cut });
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('end', () => {
      if (cut) ctx.res.write('', () => ctx.req.socket.destroy());
      resolve();
    });
  });
}

export const analyticsRoutes: Route[] = [
  { method: 'POST', path: '/analytics/messages', scopes: ['read:message'], handler: (ctx, app) => startExport(ctx, app, 'messages') },
  { method: 'POST', path: '/analytics/users', scopes: ['read:user'], handler: (ctx, app) => startExport(ctx, app, 'users') },
  { method: 'GET', path: '/_exports/:token/:name', scopes: null, handler: download },
  { method: 'HEAD', path: '/_exports/:token/:name', scopes: null, handler: download },
];
