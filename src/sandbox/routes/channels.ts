import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { LIMITS } from '../../wire/imports.js';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import { directKey, type ChannelRec, type ChannelType } from '../store.js';
import { BASIC_SORT, booleanParam, dateParam, mergeProperties, pathId, propertiesFilter, readBody, readMergePatch } from './common.js';
import { positiveInt64 } from '../../wire/int64.js';
import type { Int64 } from '../../shared/int64.js';

/**
 * A user reference (§2): an object holding either `username` or `id`. One holding both is refused, not
 * read as one of them: which user it means is the caller's mistake to see, not the sandbox's guess.
 */
export const UserRef = z
  .object({ username: z.string().min(1).optional(), id: positiveInt64.optional() })
  .transform((ref, ctx): { username: string } | { id: Int64 } => {
    if (ref.username !== undefined && ref.id !== undefined) ctx.addIssue({ code: 'custom', message: 'a user reference holds either username or id, not both' });
    else if (ref.id !== undefined) return { id: ref.id };
    else if (ref.username !== undefined) return { username: ref.username };
    else ctx.addIssue({ code: 'custom', message: 'a user reference holds username or id' });
    return z.NEVER;
  });
const channelName = z.string().min(1).max(LIMITS.nameLength);
const displayName = z.string().min(1).max(LIMITS.displayNameLength);

const CreateChannel = z.object({
  type: z.enum(['DIRECT', 'PUBLIC', 'PRIVATE']),
  creator: UserRef.optional(),
  members: z.array(UserRef).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  name: channelName.optional(),
  displayName: displayName.optional(),
});
const PatchChannel = z.object({
  name: channelName.optional(),
  displayName: displayName.optional(),
  properties: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** A user reference inside a body: an unknown user makes the request invalid (400), naming the field. */
export function bodyUserId(app: SandboxApp, ref: z.infer<typeof UserRef>, field: string): number {
  const storeId = 'id' in ref ? app.ids.toStore(ref.id) : undefined;
  const id = 'id' in ref ? (storeId !== undefined && app.store.users.has(storeId) ? storeId : undefined) : app.store.usersByName.get(ref.username);
  if (id === undefined) throw clientError(`field '${field}': unknown user ${JSON.stringify(ref)}`);
  return id;
}

export function channelOr404(ctx: Ctx, app: SandboxApp): ChannelRec {
  const channel = app.store.channels.get(pathId(ctx));
  if (!channel) throw notFound();
  return channel;
}

/** §4: "Adding and removing members and moderators applies to group channels"; a DIRECT channel's are its own. */
export function requireGroupChannel(app: SandboxApp, channel: ChannelRec, managed: 'members' | 'moderators'): void {
  if (channel.type === 'DIRECT') throw clientError(`channel ${app.ids.toWire(channel.id)} is DIRECT; ${managed} are managed on group channels only`);
}

const CHANNEL_SORT = { ...BASIC_SORT, displayName: (c: ChannelRec) => c.displayName, type: (c: ChannelRec) => c.type };

export const channelRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels',
    scopes: ['read:channel'],
    handler: (ctx, app) => {
      const s = app.store;
      const type = ctx.query.get('type');
      if (type && !['DIRECT', 'PUBLIC', 'PRIVATE'].includes(type)) throw clientError(`'type' must be DIRECT, PUBLIC or PRIVATE, got '${type}'`);
      const direct = booleanParam(ctx, 'direct');
      const from = dateParam(ctx, 'startTime');
      const to = dateParam(ctx, 'endTime');
      const props = propertiesFilter(ctx);
      // Unknown usernames match no channel (rather than 400): the filter asks "channels they are all in".
      const memberNames = ctx.query.getAll('members').filter((m) => m !== '');
      // §4 gives `members` as a unique array, as the create body's members are.
      if (new Set(memberNames).size !== memberNames.length) throw clientError(`'members' must not name a user twice`);
      const memberIds = memberNames.map((n) => s.usersByName.get(n) ?? -1);
      const channels = [...s.channels.values()].filter(
        (c) =>
          (!type || c.type === type) &&
          (direct === undefined || (c.type === 'DIRECT') === direct) &&
          (from === undefined || c.createdTime >= from) &&
          (to === undefined || c.createdTime <= to) &&
          (!props || props(c.properties)) &&
          memberIds.every((u) => s.members.get(c.id)?.has(u)),
      );
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'channels', channels, (c) => app.render.channel(c), CHANNEL_SORT));
    },
  },
  {
    method: 'POST',
    path: '/channels',
    scopes: ['create:channel'],
    handler: async (ctx, app) => {
      const body = await readBody(ctx, CreateChannel);
      const s = app.store;
      const creatorId = body.creator ? bodyUserId(app, body.creator, 'creator') : undefined;
      // §2: members are unique users; `{username}` and `{id}` of one user are the same member twice.
      const ids = new Set<number>();
      for (const [i, ref] of (body.members ?? []).entries()) {
        const id = bodyUserId(app, ref, `members.${i}`);
        if (ids.has(id)) throw clientError(`field 'members.${i}': user references must be unique; ${JSON.stringify(ref)} names a user already in members`);
        ids.add(id);
      }
      if (creatorId !== undefined) ids.add(creatorId);
      // "Creates, or returns an equivalent existing channel" (§4): same DIRECT member set, or same name.
      if (body.type === 'DIRECT') {
        if (ids.size < LIMITS.directMembersMin || ids.size > LIMITS.directMembersMax)
          throw clientError(`field 'members': a DIRECT channel has ${LIMITS.directMembersMin} to ${LIMITS.directMembersMax} members, got ${ids.size}`);
        const existing = s.directByMembers.get(directKey(ids));
        if (existing !== undefined) return sendJson(ctx, 200, app.render.channel(s.channels.get(existing)!));
      }
      if (body.name !== undefined) {
        const existing = s.channelByName(body.name);
        // A channel of another type is not equivalent: answering it would hand a PRIVATE request a PUBLIC channel.
        if (existing && existing.type !== body.type) throw clientError(`field 'name': '${body.name}' is already the name of a ${existing.type} channel`);
        // Nor is a DIRECT channel of other members (the one for these members was answered above, if any).
        if (existing?.type === 'DIRECT' && directKey(s.members.get(existing.id)?.keys() ?? []) !== directKey(ids))
          throw clientError(`field 'name': '${body.name}' is already the name of a DIRECT channel of other members`);
        if (existing) return sendJson(ctx, 200, app.render.channel(existing));
      }
      const name = body.name ?? randomUUID();
      const now = Date.now();
      const channel: ChannelRec = {
        id: s.nextId('channel'),
        type: body.type as ChannelType,
        name,
        displayName: body.displayName ?? name,
        ...(creatorId !== undefined ? { creatorId } : {}),
        properties: body.properties ?? {},
        createdTime: now,
      };
      s.change({ t: 'channel', v: channel });
      for (const u of ids) s.change({ t: 'member', c: channel.id, u, at: now });
      sendJson(ctx, 200, app.render.channel(channel));
    },
  },
  { method: 'GET', path: '/channels/:id', scopes: ['read:channel'], handler: (ctx, app) => sendJson(ctx, 200, app.render.channel(channelOr404(ctx, app))) },
  {
    method: 'PATCH',
    path: '/channels/:id',
    scopes: ['read:channel', 'update:channel'],
    handler: async (ctx, app) => {
      const channel = channelOr404(ctx, app);
      const patch = await readMergePatch(ctx, PatchChannel, 'channel');
      if (patch.name !== undefined && patch.name !== channel.name && app.store.channelsByName.has(patch.name))
        throw clientError(`channel name '${patch.name}' is already taken`);
      const next: ChannelRec = { ...channel };
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.displayName !== undefined) next.displayName = patch.displayName;
      if (patch.properties === null) next.properties = {};
      else if (patch.properties !== undefined) next.properties = mergeProperties(channel.properties, patch.properties);
      app.store.change({ t: 'channel', v: next });
      sendJson(ctx, 200, app.render.channel(next));
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:id',
    scopes: ['read:channel', 'delete:channel'],
    handler: (ctx, app) => {
      const channel = channelOr404(ctx, app);
      app.store.change({ t: '-channel', id: channel.id });
      sendJson(ctx, 200, app.render.application());
    },
  },
];
