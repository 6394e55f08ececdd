import { z } from 'zod';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson } from '../http.js';
import { offsetPage } from '../paging.js';
import type { UserRec } from '../store.js';
import { BASIC_SORT, pathId, readBody } from './common.js';
import { UserRef, bodyUserId, channelOr404, requireGroupChannel } from './channels.js';

/**
 * Channel administration (management-api.md §4 "Channels", decisions.md): custom channel events, invites,
 * moderators, and participants (the members with an ACTIVE chat session in the channel).
 */

const ChannelEvent = z.object({ type: z.string().min(1), properties: z.record(z.string(), z.unknown()), user: UserRef.optional() });
const UserRefBody = z.object({ user: UserRef });

function usersOf(ids: Iterable<number>, users: ReadonlyMap<number, UserRec>): UserRec[] {
  return [...ids].flatMap((id) => {
    const u = users.get(id);
    return u ? [u] : [];
  });
}

export const channelAdminRoutes: Route[] = [
  {
    method: 'POST',
    path: '/channels/:id/events',
    scopes: ['read:channel', 'create:channel_event'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const body = await readBody(ctx, ChannelEvent);
      const user = body.user ? app.store.users.get(bodyUserId(app, body.user, 'user')) : undefined;
      // An event is not kept and no operation reads one back: no `self` (it would answer 405), the channel instead.
      sendJson(ctx, 200, { type: body.type, ...(user ? { user: app.render.user(user) } : {}), properties: body.properties, _links: { channel: { href: `${app.baseUrl()}/channels/${app.ids.toWire(channel.id)}` } } });
    },
  },
  {
    method: 'GET',
    path: '/channels/:id/invites',
    scopes: ['read:channel_invite'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const rows = [...(app.store.invites.get(channel.id) ?? new Map<number, number>())].map(([userId, at]) => ({ userId, at }));
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'invites', rows, (r) => app.render.invite(channel.id, r.userId, r.at), { createdTime: (r) => r.at }));
    },
  },
  {
    method: 'POST',
    path: '/channels/:id/invites',
    scopes: ['read:channel', 'read:user', 'create:channel_invite'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      if (channel.type === 'DIRECT') throw clientError('a DIRECT channel takes no invites');
      const userId = bodyUserId(app, (await readBody(ctx, UserRefBody)).user, 'user');
      if (app.store.members.get(channel.id)?.has(userId)) throw clientError(`field 'user': already a member`);
      const at = app.store.invites.get(channel.id)?.get(userId) ?? app.clock();
      app.store.change({ t: 'role', r: 'invite', c: channel.id, u: userId, at });
      sendJson(ctx, 200, app.render.invite(channel.id, userId, at));
    },
  },
  {
    method: 'GET',
    path: '/channels/:id/moderators',
    scopes: ['read:channel', 'read:channel_moderator'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const users = usersOf(app.store.moderators.get(channel.id)?.keys() ?? [], app.store.users);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'users', users, (u) => app.render.user(u), BASIC_SORT));
    },
  },
  {
    method: 'POST',
    path: '/channels/:id/moderators',
    scopes: ['read:channel', 'read:user', 'read:channel_membership', 'create:channel_moderator'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      requireGroupChannel(app, channel, 'moderators');
      // §4: the body is a user reference itself (as for members), not the invite's `{user}`.
      const userId = bodyUserId(app, await readBody(ctx, UserRef), '(body)');
      if (!app.store.members.get(channel.id)?.has(userId)) throw clientError(`field '(body)': a moderator must be a member of the channel`);
      if (!app.store.moderators.get(channel.id)?.has(userId)) app.store.change({ t: 'role', r: 'moderator', c: channel.id, u: userId, at: app.clock() });
      sendJson(ctx, 200, app.render.user(app.store.users.get(userId)!));
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:id/moderators/:userId',
    scopes: ['read:channel', 'read:user', 'delete:channel_moderator'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      requireGroupChannel(app, channel, 'moderators');
      const userId = pathId(ctx, 'userId');
      if (!app.store.moderators.get(channel.id)?.has(userId)) throw notFound();
      app.store.change({ t: '-role', r: 'moderator', c: channel.id, u: userId });
      sendJson(ctx, 200, app.render.channel(channel));
    },
  },
  {
    method: 'GET',
    path: '/channels/:id/participants',
    scopes: ['read:channel', 'read:chat_session'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const present = new Set<number>();
      for (const chat of app.store.chatSessions.values()) {
        if (chat.channelId !== channel.id || chat.state !== 'ACTIVE') continue;
        const session = app.store.userSessions.get(chat.userSessionId);
        if (session?.state === 'ACTIVE' && app.store.members.get(channel.id)?.has(session.userId)) present.add(session.userId);
      }
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'users', usersOf(present, app.store.users), (u) => app.render.user(u), BASIC_SORT));
    },
  },
];
