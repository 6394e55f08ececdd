import type { Route } from '../router.js';
import { notFound } from '../errors.js';
import type { Ctx } from '../http.js';
import type { SandboxApp } from '../app.js';

/** GET /_files/<token>/<name>: a HOSTED file, without a bearer token (hosted-files.ts). */
async function download(ctx: Ctx, app: SandboxApp): Promise<void> {
  const file = await app.files.open(ctx.params.token ?? '');
  if (!file || file.name !== ctx.params.name) throw notFound();
  ctx.res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.size), 'content-disposition': `attachment; filename="${file.name}"` });
  if (ctx.req.method === 'HEAD') {
    file.stream.destroy();
    ctx.res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    file.stream.on('error', reject);
    ctx.res.on('finish', () => resolve());
    file.stream.pipe(ctx.res);
  });
}

export const fileRoutes: Route[] = [
  { method: 'GET', path: '/_files/:token/:name', scopes: null, handler: download },
  { method: 'HEAD', path: '/_files/:token/:name', scopes: null, handler: download },
];
