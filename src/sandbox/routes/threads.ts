import type { Route } from '../router.js';
import { notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import type { SandboxApp } from '../app.js';
import { findThread, threadMessageIds, type ThreadRef } from '../threads.js';
import { pathId } from './common.js';
import { listMessages, sendMessage } from './messages.js';

/** Threads (decisions.md "Threads"; scopes from its table of operations). */

function threadOr404(ctx: Ctx, app: SandboxApp): ThreadRef {
  const thread = findThread(app.store, pathId(ctx));
  if (!thread) throw notFound();
  return thread;
}

export const threadRoutes: Route[] = [
  { method: 'GET', path: '/threads/:id', scopes: ['read:thread'], handler: (ctx, app) => sendJson(ctx, 200, app.render.thread(threadOr404(ctx, app))) },
  {
    method: 'GET',
    path: '/threads/:id/messages',
    scopes: ['read:thread', 'read:message'],
    handler: (ctx, app) => listMessages(ctx, app, threadMessageIds(app.store, threadOr404(ctx, app))),
  },
  {
    method: 'POST',
    path: '/threads/:id/messages',
    scopes: ['read:thread', 'read:user', 'create:message'],
    handler: async (ctx, app) => {
      const thread = threadOr404(ctx, app);
      const message =
        thread.type === 'MAIN' ? await sendMessage(ctx, app, thread.channelId, undefined) : await sendMessage(ctx, app, thread.message.channelId, thread.message.id);
      sendJson(ctx, 200, app.render.message(message));
    },
  },
];
