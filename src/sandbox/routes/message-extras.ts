import { z } from 'zod';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { cursorPage, offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { MessageRec } from '../store.js';
import { findThread } from '../threads.js';
import { pathId, readBody } from './common.js';
import { UserRef, bodyUserId, channelOr404 } from './channels.js';
import { userOr404 } from './users.js';

/**
 * Around messages (management-api.md §4, decisions.md): keystrokes, read receipts and their summaries, a
 * user's notifications and unread messages, and the /_sandbox/ surface that marks a message read (the
 * Management API has no operation for it; client SDKs do it).
 */

const Keystrokes = z.object({ keys: z.string().min(1), user: UserRef });
const ReadBody = z.object({ username: z.string().min(1) });

function messageOr404(ctx: Ctx, app: SandboxApp, name = 'id'): MessageRec {
  const message = app.store.messages.get(pathId(ctx, name));
  if (!message) throw notFound();
  return message;
}

/**
 * Keystrokes are not kept: the answer echoes them with the user's name. No operation reads keystrokes back,
 * so the answer links the channel (and thread) they were typed in, not a `self` that would answer 405.
 */
async function keystrokes(ctx: Ctx, app: SandboxApp, channelId: number, threadPath?: string): Promise<void> {
  const body = await readBody(ctx, Keystrokes);
  const userId = bodyUserId(app, body.user, 'user');
  if (!app.store.members.get(channelId)?.has(userId)) throw clientError(`field 'user': not a member of the channel`);
  const b = app.baseUrl();
  const links = { ...(threadPath === undefined ? {} : { thread: { href: `${b}${threadPath}` } }), channel: { href: `${b}/channels/${app.ids.toWire(channelId)}` } };
  sendJson(ctx, 200, { keys: body.keys, username: app.store.users.get(userId)!.name, _links: links });
}

type Summary = { messageId: number; channelId: number; readCount: number; lastReadTime: number };

const SUMMARY_SORT = { messageId: (s: Summary) => s.messageId, readCount: (s: Summary) => s.readCount, lastReadTime: (s: Summary) => s.lastReadTime };

function renderSummary(app: SandboxApp, s: Summary): Record<string, unknown> {
  const id = app.ids.toWire(s.messageId);
  return {
    messageId: id,
    channelId: app.ids.toWire(s.channelId),
    readCount: s.readCount,
    lastReadTime: new Date(s.lastReadTime).toISOString(),
    _links: { message: { href: `${app.baseUrl()}/messages/${id}` }, receipts: { href: `${app.baseUrl()}/messages/${id}/read-receipts` } },
  };
}

/** Newest first: cursor pages run over ascending keys, so each notification id is keyed from the top. */
const NEWEST_FIRST_TOP = 2 ** 52;

export const messageExtraRoutes: Route[] = [
  {
    method: 'POST',
    path: '/channels/:id/keystrokes',
    scopes: ['read:channel', 'read:user', 'create:keystrokes'],
    handler: (ctx, app) => keystrokes(ctx, app, channelOr404(ctx, app).id),
  },
  {
    method: 'POST',
    path: '/threads/:id/keystrokes',
    scopes: ['read:thread', 'read:user', 'create:keystrokes'],
    handler: (ctx, app) => {
      const thread = findThread(app.store, pathId(ctx));
      if (!thread) throw notFound();
      return keystrokes(ctx, app, thread.type === 'MAIN' ? thread.channelId : thread.message.channelId, `/threads/${app.ids.toWire(pathId(ctx))}`);
    },
  },
  {
    method: 'POST',
    path: '/_sandbox/messages/:id/read',
    scopes: [],
    handler: async (ctx, app) => {
      const message = messageOr404(ctx, app);
      const { username } = await readBody(ctx, ReadBody);
      const user = app.store.userByName(username);
      if (!user) throw clientError(`field 'username': unknown user '${username}'`);
      if (!app.store.members.get(message.channelId)?.has(user.id)) throw clientError(`field 'username': '${username}' is not a member of the message's channel`);
      if (!app.store.receipts.get(message.id)?.has(user.id)) app.store.change({ t: 'read', m: message.id, u: user.id, at: app.clock() });
      sendJson(ctx, 200, app.render.receipt(message.id, user.id, app.store.receipts.get(message.id)!.get(user.id)!));
    },
  },
  {
    method: 'GET',
    path: '/messages/:id/read-receipts',
    scopes: ['read:message', 'read:read_receipt'],
    handler: (ctx, app) => {
      const message = messageOr404(ctx, app);
      const receipts = [...(app.store.receipts.get(message.id) ?? new Map<number, number>())].map(([userId, at]) => ({ userId, at }));
      const sort = { createdTime: (r: { at: number }) => r.at };
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'receipts', receipts, (r) => app.render.receipt(message.id, r.userId, r.at), sort));
    },
  },
  {
    method: 'GET',
    path: '/application/message-read-receipt-summaries',
    scopes: ['read:application', 'read:message'],
    handler: (ctx, app) => {
      const summaries: Summary[] = [];
      for (const [messageId, readers] of app.store.receipts) {
        const message = app.store.messages.get(messageId);
        if (!message || readers.size === 0) continue;
        summaries.push({ messageId, channelId: message.channelId, readCount: readers.size, lastReadTime: Math.max(...readers.values()) });
      }
      summaries.sort((a, b) => a.messageId - b.messageId);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'summaries', summaries, (s) => renderSummary(app, s), SUMMARY_SORT));
    },
  },
  {
    method: 'GET',
    path: '/users/:id/notifications',
    scopes: ['read:user', 'read:notifications'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      const keys = app.store.notifications.idsNewestFirst(user.id, (m) => app.store.messages.has(m)).map((id) => NEWEST_FIRST_TOP - id);
      const accept = (key: number) => app.store.notifications.get(user.id, NEWEST_FIRST_TOP - key);
      sendJson(ctx, 200, cursorPage(ctx, app.baseUrl(), 'notifications', keys, accept, (n) => app.render.notification(n)));
    },
  },
];

/** `GET /users/{id}/messages?unread=true`: messages of the user's channels sent by others that the user has not read. */
export function unreadFilter(app: SandboxApp, userId: number): (m: MessageRec) => boolean {
  return (m) => m.userId !== userId && app.store.members.get(m.channelId)?.has(userId) === true && !app.store.receipts.get(m.id)?.has(userId);
}
