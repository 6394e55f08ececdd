import type { IncomingMessage, ServerResponse } from 'node:http';
import { realSleep } from '../shared/async.js';
import type { SandboxApp } from './app.js';
import { requireScopes } from './auth.js';
import { HttpError, notFound, statusError } from './errors.js';
import type { FaultEngine } from './faults.js';
import { discardBody, sendEmpty, sendError, type Ctx } from './http.js';
import type { RecordedRequest } from './options.js';
import type { Router } from './router.js';

export interface ServerParts {
  app: SandboxApp;
  router: Router;
  faults: FaultEngine;
  recorded: RecordedRequest[];
  apiVersion: string;
}

/** Same-origin redirect faults point here; `/_r/<path>` is served exactly like `<path>`. */
const REDIRECT_PREFIX = '/_r';

/** `clock`: the sandbox's (options.ts), so a test on virtual time sees when, on that time, each request came. */
function recordRequest(req: IncomingMessage, res: ServerResponse, url: URL, recorded: RecordedRequest[], clock: () => number): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    // The credential itself is never kept: tests only learn whether one was sent.
    headers[name] = name === 'authorization' ? 'present' : Array.isArray(value) ? value.join(', ') : value;
  }
  const entry: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.search.slice(1), headers, receivedAt: clock() };
  recorded.push(entry);
  // The answer's time is when its head is written: a client may read it before 'finish' runs here.
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    entry.answeredAt = clock();
    return writeHead(...args);
  }) as typeof res.writeHead;
  res.on('finish', () => {
    entry.status = res.statusCode;
    const retryAfter = res.getHeader('retry-after');
    if (retryAfter !== undefined) entry.retryAfter = String(retryAfter);
  });
}

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Every request: record it; answer `/v1/...` with a redirect; apply the fault rules; route; check the
 * bearer token and scopes; run the handler; turn failures into §7 bodies.
 */
export function createRequestHandler(parts: ServerParts): (req: IncomingMessage, res: ServerResponse) => void {
  const { app, router, faults, recorded, apiVersion } = parts;
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    recordRequest(req, res, url, recorded, app.clock);
    const ctx: Ctx = {
      req,
      res,
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      search: url.search,
      params: {},
      beforeSend: app.flush,
      apiVersion,
      ids: app.ids,
    };
    handle(ctx).catch((error: unknown) => {
      if (res.headersSent || req.socket.destroyed) {
        req.socket.destroy();
        return;
      }
      discardBody(ctx);
      if (error instanceof HttpError) return sendError(ctx, error);
      app.logger.error({ err: error instanceof Error ? error.stack : String(error), path: ctx.path }, 'sandbox: unexpected failure');
      sendError(ctx, statusError(500, 'an internal error occurred'));
    });
  };

  async function handle(ctx: Ctx): Promise<void> {
    const base = app.baseUrl();
    // The older revision's `/v1` prefix (§9): a real redirect, as clients meet on the platform.
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) {
      discardBody(ctx);
      const status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 301 : 308;
      return sendEmpty(ctx, status, { location: `${base}${ctx.path.slice(3) || '/'}${ctx.search}` });
    }
    let redirected = false;
    if (ctx.path.startsWith(`${REDIRECT_PREFIX}/`)) {
      ctx.path = ctx.path.slice(REDIRECT_PREFIX.length);
      redirected = true;
    }
    const outcome = faults.decide(ctx.method, ctx.path, app.tokens.clientOf(ctx.req), redirected, app.clock());
    if (outcome.delayMs > 0) await realSleep(outcome.delayMs);
    const decision = outcome.decision;
    if (decision?.kind === 'answer') throw decision.error;
    if (decision?.kind === 'redirect') {
      discardBody(ctx);
      const target = decision.toOrigin ? `${decision.toOrigin.replace(/\/$/, '')}${ctx.path}` : `${base}${REDIRECT_PREFIX}${ctx.path}`;
      return sendEmpty(ctx, decision.status, { location: `${target}${ctx.search}` });
    }
    if (decision?.kind === 'drop') {
      if (decision.when === 'before-body') return void ctx.req.socket.destroy();
      if (decision.when === 'after-processing') ctx.drop = 'after-processing';
      else if (hasBody(ctx.req)) {
        // Part of the upload arrives, then the connection goes: nothing is applied.
        return new Promise<void>((resolve) => {
          const cut = () => {
            ctx.req.socket.destroy();
            resolve();
          };
          ctx.req.once('data', cut);
          ctx.req.once('end', cut);
        });
      } else ctx.drop = 'mid-response';
    }
    const match = router.match(ctx.method, ctx.path);
    if (match.kind === 'none') throw notFound();
    if (match.kind === 'wrong-method')
      throw statusError(405, `method ${ctx.method} is not allowed on ${ctx.path}`, { allow: match.allow.join(', ') });
    if (match.route.scopes !== null) requireScopes(app.tokens.authenticate(ctx.req), match.route.scopes);
    ctx.params = match.params;
    await match.route.handler(ctx, app);
  }
}
