import { z } from 'zod';
import type { Route } from '../router.js';
import { HttpError, clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { ChatSessionRec, UserSessionRec } from '../store.js';
import { pathId, readBody } from './common.js';
import { positiveInt64 } from '../../wire/int64.js';

/**
 * Sessions (decisions.md "Sessions, notifications, read receipts"): the Management API lists them; the
 * /_sandbox/ rehearsal surface starts and ends them, as a client SDK would. Starting a user session runs the
 * `user.attempted.start_session` functions (one that fails refuses it, 403); a chat session runs
 * `user.started.chat_session`.
 */

const StartUserSession = z.object({ username: z.string().min(1), userAgent: z.string().min(1).optional(), authParams: z.record(z.string(), z.unknown()).optional() });
/** An id as a client got it back: an int64 (a bigint beyond 2^53, as the body reader gives it) or its digits. */
const WireId = z.union([positiveInt64, z.string().regex(/^\d+$/)]);
const StartChatSession = z.object({ userSessionId: WireId, channelId: WireId });

const SESSION_SORT = { id: (s: { id: number }) => s.id, createdTime: (s: { createdTime: number }) => s.createdTime };

function stateFilter(ctx: Ctx): (s: { state: string }) => boolean {
  const state = ctx.query.get('state');
  if (state === null || state === '') return () => true;
  if (state !== 'ACTIVE' && state !== 'ENDED') throw clientError(`'state' must be ACTIVE or ENDED, got '${state}'`);
  return (s) => s.state === state;
}

function wireToStore(app: SandboxApp, value: number | bigint | string, field: string): number {
  const id = app.ids.toStore(typeof value === 'string' ? BigInt(value) : value);
  if (id === undefined) throw clientError(`field '${field}': unknown id ${String(value)}`);
  return id;
}

async function startUserSession(ctx: Ctx, app: SandboxApp): Promise<void> {
  const body = await readBody(ctx, StartUserSession);
  // The functions run before the user is looked up: the attempt is where a handler creates a user on first
  // sign-in (§6.3 gives it `authParams`, which may hold displayName; decisions.md gives it createUser).
  const outcomes = await app.chatEvents.fire('user.attempted.start_session', { username: body.username, authParams: body.authParams ?? {} });
  const refused = outcomes.find((o) => o.status === 'FAILED');
  // decisions.md: a refused start is the §7 403 body (authentication error), the handler's reason appended.
  if (refused)
    throw new HttpError(403, { error: 'access_denied', error_description: `access is denied: a start-session function refused the session: ${refused.error ?? 'it failed'}` });
  const user = app.store.userByName(body.username);
  if (!user) throw clientError(`field 'username': unknown user '${body.username}'`);
  const session: UserSessionRec = { id: app.store.nextId('session'), userId: user.id, state: 'ACTIVE', ...(body.userAgent ? { userAgent: body.userAgent } : {}), createdTime: app.clock() };
  app.store.change({ t: 'usess', v: session });
  sendJson(ctx, 201, app.render.userSession(session));
}

async function startChatSession(ctx: Ctx, app: SandboxApp): Promise<void> {
  const body = await readBody(ctx, StartChatSession);
  const userSession = app.store.userSessions.get(wireToStore(app, body.userSessionId, 'userSessionId'));
  if (!userSession) throw clientError(`field 'userSessionId': unknown user session`);
  if (userSession.state !== 'ACTIVE') throw clientError(`field 'userSessionId': the user session has ended`);
  const channelId = wireToStore(app, body.channelId, 'channelId');
  const channel = app.store.channels.get(channelId);
  if (!channel) throw clientError(`field 'channelId': unknown channel`);
  if (!app.store.members.get(channelId)?.has(userSession.userId)) throw clientError(`field 'channelId': the session's user is not a member of the channel`);
  const session: ChatSessionRec = { id: app.store.nextId('session'), userSessionId: userSession.id, channelId, state: 'ACTIVE', createdTime: app.clock() };
  app.store.change({ t: 'csess', v: session });
  sendJson(ctx, 201, app.render.chatSession(session));
  void app.chatEvents.fire('user.started.chat_session', { chatSession: app.render.chatSession(session), channel: app.render.channel(channel) });
}

/** Ends the ACTIVE chat sessions `which` picks, at `at`. */
export function endChatSessions(app: SandboxApp, which: (chat: ChatSessionRec) => boolean, at: number): void {
  for (const chat of app.store.chatSessions.values())
    if (chat.state === 'ACTIVE' && which(chat)) app.store.change({ t: 'csess', v: { ...chat, state: 'ENDED', endTime: at } });
}

export const sessionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user-sessions',
    scopes: ['read:user_session'],
    handler: (ctx, app) => {
      const keep = stateFilter(ctx);
      const sessions = [...app.store.userSessions.values()].filter(keep);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'sessions', sessions, (s) => app.render.userSession(s), SESSION_SORT));
    },
  },
  {
    method: 'GET',
    path: '/chat-sessions',
    scopes: ['read:chat_session'],
    handler: (ctx, app) => {
      const keep = stateFilter(ctx);
      const sessions = [...app.store.chatSessions.values()].filter(keep);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'sessions', sessions, (s) => app.render.chatSession(s), SESSION_SORT));
    },
  },
  { method: 'POST', path: '/_sandbox/user-sessions', scopes: [], handler: startUserSession },
  {
    method: 'POST',
    path: '/_sandbox/user-sessions/:id/end',
    scopes: [],
    handler: (ctx, app) => {
      const session = app.store.userSessions.get(pathId(ctx));
      if (!session) throw notFound();
      const ended: UserSessionRec = session.state === 'ENDED' ? session : { ...session, state: 'ENDED', endTime: app.clock() };
      if (ended !== session) {
        app.store.change({ t: 'usess', v: ended });
        // Its chat sessions end with it.
        endChatSessions(app, (chat) => chat.userSessionId === session.id, ended.endTime!);
      }
      sendJson(ctx, 200, app.render.userSession(ended));
    },
  },
  { method: 'POST', path: '/_sandbox/chat-sessions', scopes: [], handler: startChatSession },
  {
    method: 'POST',
    path: '/_sandbox/chat-sessions/:id/end',
    scopes: [],
    handler: (ctx, app) => {
      const session = app.store.chatSessions.get(pathId(ctx));
      if (!session) throw notFound();
      const ended: ChatSessionRec = session.state === 'ENDED' ? session : { ...session, state: 'ENDED', endTime: app.clock() };
      if (ended !== session) app.store.change({ t: 'csess', v: ended });
      sendJson(ctx, 200, app.render.chatSession(ended));
    },
  },
];
