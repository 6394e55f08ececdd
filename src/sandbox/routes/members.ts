import type { Route } from '../router.js';
import { notFound } from '../errors.js';
import { sendJson } from '../http.js';
import { offsetPage } from '../paging.js';
import type { UserRec } from '../store.js';
import { BASIC_SORT, pathId, readBody } from './common.js';
import { UserRef, bodyUserId, channelOr404, requireGroupChannel } from './channels.js';
import { endChatSessions } from './sessions.js';

export const memberRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:id/members',
    scopes: ['read:channel', 'read:channel_membership'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const users = [...(app.store.members.get(channel.id)?.keys() ?? [])].flatMap((id) => {
        const u = app.store.users.get(id);
        return u ? [u] : [];
      });
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'users', users, (u: UserRec) => app.render.user(u), BASIC_SORT));
    },
  },
  {
    method: 'POST',
    path: '/channels/:id/members',
    scopes: ['read:channel', 'read:user', 'create:channel_membership'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const ref = await readBody(ctx, UserRef);
      requireGroupChannel(app, channel, 'members');
      const userId = bodyUserId(app, ref, '(body)');
      if (!app.store.members.get(channel.id)?.has(userId)) app.store.change({ t: 'member', c: channel.id, u: userId, at: Date.now() });
      sendJson(ctx, 200, app.render.channel(channel));
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:id/members/:userId',
    scopes: ['read:channel', 'read:user', 'delete:channel_membership'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const userId = pathId(ctx, 'userId');
      requireGroupChannel(app, channel, 'members');
      if (!app.store.members.get(channel.id)?.has(userId)) throw notFound();
      app.store.change({ t: '-member', c: channel.id, u: userId });
      // A chat session is a member's (it needs membership to start): the user's in this channel end.
      endChatSessions(app, (chat) => chat.channelId === channel.id && app.store.userSessions.get(chat.userSessionId)?.userId === userId, app.clock());
      sendJson(ctx, 200, app.render.channel(channel));
    },
  },
  {
    method: 'GET',
    path: '/channels/:id/memberships',
    scopes: ['read:channel', 'read:channel_membership'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const rows = [...(app.store.members.get(channel.id) ?? new Map<number, number>())].map(([userId, at]) => ({ userId, at }));
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'memberships', rows, (r) => app.render.membership(channel.id, r.userId, r.at), {
        createdTime: (r) => r.at,
      }));
    },
  },
];
