import { IMPORT_JOB_TYPE, IMPORT_SCOPE, type ImportKind } from '../../wire/imports.js';
import type { Route } from '../router.js';
import type { SandboxApp } from '../app.js';
import { notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { importWork } from '../import-job.js';
import { parseImportFile, readImportBytes } from '../multipart.js';
import { scanMessageUpload } from '../message-upload-scan.js';
import { pathId } from './common.js';
import { renderJob } from './jobs.js';

/** Accepts the upload, answers 202 with a PENDING job at once; the job engine does the rest. */
async function acceptImport(ctx: Ctx, app: SandboxApp, kind: ImportKind, channelId?: number): Promise<void> {
  const bytes = await readImportBytes(ctx);
  // Messages files of the common shape skip the text decode, JSON.parse and re-encode (message-upload-scan.ts).
  const items = (kind === 'messages' ? scanMessageUpload(bytes) : undefined) ?? parseImportFile(bytes);
  const count = 'items' in items ? items.items.length : items.messages.length;
  const job = app.jobs.submit(IMPORT_JOB_TYPE[kind], importWork(kind, items, app.store, app.logger, app.flush, channelId, app.ids, app.jobs.refusesAny ? (key) => app.jobs.refuses(key) : undefined, app.clock), count);
  sendJson(ctx, 202, renderJob(app, job));
}

export const importRoutes: Route[] = [
  { method: 'POST', path: '/imports/users', scopes: [IMPORT_SCOPE.users], handler: (ctx, app) => acceptImport(ctx, app, 'users') },
  { method: 'POST', path: '/imports/channels', scopes: [IMPORT_SCOPE.channels], handler: (ctx, app) => acceptImport(ctx, app, 'channels') },
  { method: 'POST', path: '/imports/messages', scopes: [IMPORT_SCOPE.messages], handler: (ctx, app) => acceptImport(ctx, app, 'messages') },
  {
    method: 'POST',
    path: '/imports/channels/:id/members',
    scopes: [IMPORT_SCOPE.members],
    handler: (ctx, app) => {
      const id = pathId(ctx);
      if (!app.store.channels.has(id)) throw notFound();
      return acceptImport(ctx, app, 'members', id);
    },
  },
];
