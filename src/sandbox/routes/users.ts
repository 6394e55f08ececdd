import { z } from 'zod';
import { LIMITS } from '../../wire/imports.js';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendEmpty, sendJson, type Ctx } from '../http.js';
import { cursorPage, offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { MessageRec, UserRec } from '../store.js';
import { BASIC_SORT, booleanParam, mergeProperties, pathId, propertiesFilter, readBody, readMergePatch } from './common.js';
import { unreadFilter } from './message-extras.js';

const name = z.string().min(1).max(LIMITS.nameLength);
const displayName = z.string().min(1).max(LIMITS.displayNameLength);
const CreateUser = z.object({ name, displayName, isGuest: z.boolean(), properties: z.record(z.string(), z.unknown()).optional() });
const PatchUser = z.object({
  name: name.optional(),
  displayName: displayName.optional(),
  isGuest: z.boolean().optional(),
  displayPictureUrl: z.string().min(1).nullable().optional(),
  properties: z.record(z.string(), z.unknown()).nullable().optional(),
});

const USER_SORT = { ...BASIC_SORT, displayName: (u: UserRec) => u.displayName };

export function userOr404(ctx: Ctx, app: SandboxApp): UserRec {
  const user = app.store.users.get(pathId(ctx));
  if (!user) throw notFound();
  return user;
}

export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users',
    scopes: ['read:user'],
    handler: (ctx, app) => {
      const byName = ctx.query.get('name');
      const props = propertiesFilter(ctx);
      let users: UserRec[];
      if (byName !== null && byName !== '') {
        const one = app.store.userByName(byName);
        users = one ? [one] : [];
      } else users = [...app.store.users.values()];
      if (props) users = users.filter((u) => props(u.properties));
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'users', users, (u) => app.render.user(u), USER_SORT));
    },
  },
  {
    method: 'HEAD',
    path: '/users',
    scopes: ['read:user'],
    handler: (ctx, app) => {
      const byName = ctx.query.get('name');
      if (byName === null || byName === '') throw clientError(`query parameter 'name' is required`);
      if (!app.store.usersByName.has(byName)) throw notFound();
      sendEmpty(ctx, 200);
    },
  },
  {
    method: 'POST',
    path: '/users',
    scopes: ['create:user'],
    handler: async (ctx, app) => {
      const body = await readBody(ctx, CreateUser);
      if (app.store.usersByName.has(body.name)) throw clientError(`username '${body.name}' is already taken`);
      const user: UserRec = {
        id: app.store.nextId('user'),
        name: body.name,
        displayName: body.displayName,
        type: 'PERSON',
        isGuest: body.isGuest,
        properties: body.properties ?? {},
        createdTime: Date.now(),
      };
      app.store.change({ t: 'user', v: user });
      sendJson(ctx, 200, app.render.user(user));
    },
  },
  { method: 'GET', path: '/users/:id', scopes: ['read:user'], handler: (ctx, app) => sendJson(ctx, 200, app.render.user(userOr404(ctx, app))) },
  {
    method: 'PATCH',
    path: '/users/:id',
    scopes: ['read:user', 'update:user'],
    handler: async (ctx, app) => {
      const user = userOr404(ctx, app);
      const patch = await readMergePatch(ctx, PatchUser, 'user');
      if (patch.name !== undefined && patch.name !== user.name && app.store.usersByName.has(patch.name))
        throw clientError(`username '${patch.name}' is already taken`);
      const next: UserRec = { ...user };
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.displayName !== undefined) next.displayName = patch.displayName;
      if (patch.isGuest !== undefined) next.isGuest = patch.isGuest;
      if (patch.displayPictureUrl === null) delete next.displayPictureUrl;
      else if (patch.displayPictureUrl !== undefined) next.displayPictureUrl = patch.displayPictureUrl;
      if (patch.properties === null) next.properties = {};
      else if (patch.properties !== undefined) next.properties = mergeProperties(user.properties, patch.properties);
      app.store.change({ t: 'user', v: next });
      sendJson(ctx, 200, app.render.user(next));
    },
  },
  {
    method: 'DELETE',
    path: '/users/:id',
    scopes: ['read:user', 'delete:user'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      app.store.change({ t: '-user', id: user.id });
      sendJson(ctx, 200, app.render.application());
    },
  },
  {
    method: 'GET',
    path: '/users/:id/channels',
    scopes: ['read:user', 'read:channels'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      const s = app.store;
      const channels = [...s.channels.values()].filter((c) => c.creatorId === user.id || s.members.get(c.id)?.has(user.id));
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'channels', channels, (c) => app.render.channel(c), BASIC_SORT));
    },
  },
  {
    method: 'GET',
    path: '/users/:id/messages',
    scopes: ['read:user', 'read:channels'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      const s = app.store;
      const unread = booleanParam(ctx, 'unread') === true;
      const keep = unread ? unreadFilter(app, user.id) : (m: MessageRec) => m.userId === user.id;
      const accept = (id: number) => {
        const m = s.messages.get(id);
        return m && keep(m) ? m : undefined;
      };
      sendJson(ctx, 200, cursorPage(ctx, app.baseUrl(), 'messages', s.messageIds, accept, (m) => app.render.message(m)));
    },
  },
];
