import { z } from 'zod';
import { LIMITS } from '../../wire/imports.js';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { cursorPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { MessageRec } from '../store.js';
import { mergeProperties, pathId, readBody, readMergePatch } from './common.js';
import { UserRef, bodyUserId, channelOr404 } from './channels.js';
import { threadOf } from '../threads.js';
import { commitSend, notificationsOf } from '../notify.js';
import { sentByFunction } from '../runtime/context-bridge.js';

/** decisions.md "Enumerations": the message types; a user's message is TEXT or FILE, the application's SYSTEM_*. */
const MESSAGE_TYPES = ['TEXT', 'FILE', 'SYSTEM_TEXT', 'SYSTEM_FILE'] as const;
type MessageType = (typeof MESSAGE_TYPES)[number];

const CreateMessage = z
  .object({
    type: z.enum(MESSAGE_TYPES),
    body: z.string().min(1).max(LIMITS.bodyLength).optional(),
    groupTag: z.string().min(1).optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
    user: UserRef.optional(),
    file: z
      .object({ name: z.string().min(1), contentType: z.string().min(1), size: z.number().int().nonnegative(), url: z.string().min(1).optional() })
      .optional(),
  })
  .superRefine((m, ctx) => {
    for (const problem of typeProblems(m.type, m)) ctx.addIssue({ code: 'custom', ...problem });
  });

/**
 * What the type asks of the rest of the body (§2: "body required for text"): a text needs its body and
 * carries no file, a file needs its file; a SYSTEM_* message is the application's, so it names no sender.
 */
function typeProblems(type: MessageType, m: { body?: string; file?: object; user?: object }): Array<{ path: string[]; message: string }> {
  const problems: Array<{ path: string[]; message: string }> = [];
  const isText = type === 'TEXT' || type === 'SYSTEM_TEXT';
  if (isText && m.body === undefined) problems.push({ path: ['body'], message: `a ${type} message needs a body` });
  if (!isText && m.file === undefined) problems.push({ path: ['file'], message: `a ${type} message needs a file` });
  // decisions.md "Enumerations": a file message is FILE (SYSTEM_FILE without a user); stored as a text it would hide its file.
  if (isText && m.file !== undefined) problems.push({ path: ['file'], message: `a ${type} message carries no file; a file message is FILE, or SYSTEM_FILE without a user` });
  if (type.startsWith('SYSTEM_') && m.user !== undefined) problems.push({ path: ['user'], message: `a ${type} message is sent by the application and carries no user` });
  return problems;
}

/**
 * The type a message is stored with: one sent without `user` is the system's (§2), so a TEXT or FILE
 * without a sender is SYSTEM_TEXT or SYSTEM_FILE (decisions.md: "a file message sent with a user is FILE,
 * without one SYSTEM_FILE").
 */
function storedType(type: MessageType, hasSender: boolean): MessageType {
  if (hasSender || type.startsWith('SYSTEM_')) return type;
  return type === 'TEXT' ? 'SYSTEM_TEXT' : 'SYSTEM_FILE';
}

/** Merge patch of a message (decisions.md: scopes read:message, update:message); null removes groupTag or properties. */
const PatchMessage = z.object({
  body: z.string().min(1).max(LIMITS.bodyLength).optional(),
  groupTag: z.string().min(1).nullable().optional(),
  properties: z.record(z.string(), z.unknown()).nullable().optional(),
});

function patchMessage(message: MessageRec, patch: z.infer<typeof PatchMessage>, now: number): MessageRec {
  const next: MessageRec = { ...message, lastEditedTime: now };
  if (patch.body !== undefined) next.body = patch.body;
  if (patch.groupTag === null) delete next.groupTag;
  else if (patch.groupTag !== undefined) next.groupTag = patch.groupTag;
  if (patch.properties === null) delete next.properties;
  else if (patch.properties !== undefined) next.properties = mergeProperties(message.properties ?? {}, patch.properties);
  return next;
}

/** `username` (sender) and `query` (text in body, case-insensitive) filters of the message lists. */
function messageFilter(ctx: Ctx, app: SandboxApp): (m: MessageRec) => boolean {
  const username = ctx.query.get('username');
  const query = ctx.query.get('query')?.toLowerCase();
  const userId = username ? (app.store.usersByName.get(username) ?? -1) : undefined;
  return (m) => (userId === undefined || m.userId === userId) && (!query || (m.body ?? '').toLowerCase().includes(query));
}

/**
 * Sends a message through the API into a channel (parentId undefined) or into a message's reply thread:
 * the create-message body, its author a member of the channel when given.
 */
export async function sendMessage(ctx: Ctx, app: SandboxApp, channelId: number, parentId: number | undefined): Promise<MessageRec> {
  const body: MessageBody = (ctx.req.headers['content-type'] ?? '').startsWith('multipart/') ? await fileMessageBody(ctx, app) : await readBody(ctx, CreateMessage);
  const userId = body.user ? bodyUserId(app, body.user, 'user') : undefined;
  const message: MessageRec = {
    id: app.store.nextId('message'),
    type: storedType(body.type as MessageType, userId !== undefined),
    channelId,
    ...(userId !== undefined ? { userId } : {}),
    ...(body.body !== undefined ? { body: body.body } : {}),
    ...(body.groupTag !== undefined ? { groupTag: body.groupTag } : {}),
    ...(body.properties !== undefined ? { properties: body.properties } : {}),
    ...(body.file ? { file: { type: body.file.url && !body.file.hosted ? 'EXTERNAL' : 'HOSTED', name: body.file.name, contentType: body.file.contentType, size: body.file.size, ...(body.file.url ? { url: body.file.url } : {}) } } : {}),
    ...(parentId !== undefined ? { parentId } : {}),
    createdTime: Date.now(),
  };
  commitSend(app, message, notificationsOf(app, message), sentByFunction(ctx.req.headers));
  return message;
}

type MessageBody = Omit<z.infer<typeof CreateMessage>, 'file'> & { file?: { name: string; contentType: string; size: number; url?: string; hosted?: boolean } };

/**
 * The multipart variant (management-api.md §2): part `file` (required), `groupTag`, `username`,
 * `properties` (JSON text). The file is stored HOSTED; with a user the message is FILE, else SYSTEM_FILE.
 */
async function fileMessageBody(ctx: Ctx, app: SandboxApp): Promise<MessageBody> {
  const { file, fields } = await app.files.readForm(ctx);
  let properties: Record<string, unknown> | undefined;
  if (fields.properties !== undefined) {
    try {
      properties = JSON.parse(fields.properties) as Record<string, unknown>;
    } catch {
      throw clientError(`part 'properties' must be a JSON object`);
    }
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) throw clientError(`part 'properties' must be a JSON object`);
  }
  return {
    type: fields.username ? 'FILE' : 'SYSTEM_FILE',
    ...(fields.username ? { user: { username: fields.username } } : {}),
    ...(fields.groupTag ? { groupTag: fields.groupTag } : {}),
    ...(properties ? { properties } : {}),
    file: { name: file.name, contentType: file.contentType, size: file.size, url: app.files.url(file), hosted: true },
  };
}

/** Deletes a message and its replies, replies first, each as its own journaled op. */
function deleteMessage(app: SandboxApp, id: number): void {
  for (const reply of [...(app.store.repliesByParent.get(id) ?? [])]) deleteMessage(app, reply);
  app.store.change({ t: '-msg', id });
}

export function listMessages(ctx: Ctx, app: SandboxApp, ids: readonly number[]): void {
  const keep = messageFilter(ctx, app);
  const accept = (id: number) => {
    const m = app.store.messages.get(id);
    return m && keep(m) ? m : undefined;
  };
  sendJson(ctx, 200, cursorPage(ctx, app.baseUrl(), 'messages', ids, accept, (m) => app.render.message(m)));
}

function messageOr404(ctx: Ctx, app: SandboxApp): MessageRec {
  const message = app.store.messages.get(pathId(ctx));
  if (!message) throw notFound();
  return message;
}

export const messageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:id/messages',
    scopes: ['read:channel', 'read:message'],
    handler: (ctx, app) => listMessages(ctx, app, app.store.messageIdsByChannel.get(channelOr404(ctx, app).id) ?? []),
  },
  {
    method: 'POST',
    path: '/channels/:id/messages',
    scopes: ['read:channel', 'read:user', 'create:message'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const message = await sendMessage(ctx, app, channel.id, undefined);
      sendJson(ctx, 200, app.render.message(message));
    },
  },
  { method: 'GET', path: '/messages', scopes: ['read:message'], handler: (ctx, app) => listMessages(ctx, app, app.store.messageIds) },
  {
    // decisions.md: deletes every message of the application and answers the Application.
    method: 'DELETE',
    path: '/messages',
    scopes: ['read:message', 'delete:message'],
    handler: (ctx, app) => {
      for (const id of [...app.store.messageIds].reverse()) if (app.store.messages.has(id)) app.store.change({ t: '-msg', id });
      sendJson(ctx, 200, app.render.application());
    },
  },
  { method: 'GET', path: '/messages/:id', scopes: ['read:message'], handler: (ctx, app) => sendJson(ctx, 200, app.render.message(messageOr404(ctx, app))) },
  {
    method: 'PATCH',
    path: '/messages/:id',
    scopes: ['read:message', 'update:message'],
    handler: async (ctx, app) => {
      const message = messageOr404(ctx, app);
      const next = patchMessage(message, await readMergePatch(ctx, PatchMessage, 'message'), Date.now());
      app.store.change({ t: 'msg', v: next });
      sendJson(ctx, 200, app.render.message(next));
    },
  },
  {
    method: 'DELETE',
    path: '/messages/:id',
    scopes: ['read:message', 'delete:message'],
    handler: (ctx, app) => {
      const message = messageOr404(ctx, app);
      const thread = threadOf(app.store, message);
      deleteMessage(app, message.id);
      sendJson(ctx, 200, app.render.thread(thread));
    },
  },
];
