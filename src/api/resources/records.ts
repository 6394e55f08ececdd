import type { Int64 } from '../../shared/int64.js';
import { Application, Channel, Message, User, cursorPage, offsetPage } from '../../wire/resources.js';
import type { CallSpec, Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { createJsonBody, createMergePatchBody } from '../http/body.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';
import { z } from 'zod';

type Signal = { signal?: AbortSignal };
type UserRef = { username: string } | { id: Int64 };

/** A membership: `{createdTime, _links{self, channel, user}}` (decisions.md). */
const Membership = z.looseObject({ createdTime: z.string().optional(), _links: z.record(z.string(), z.unknown()).optional() });
export type Membership = z.infer<typeof Membership>;

/**
 * Creating and removing single records (management-api.md §4): what a team scripts around an import —
 * a channel or user made by hand, a member added or removed, a message corrected or deleted.
 */
export interface RecordsResource {
  createChannel(body: { type: 'PUBLIC' | 'PRIVATE' | 'DIRECT'; name?: string; displayName?: string; members?: UserRef[]; creator?: UserRef; properties?: Record<string, unknown> }, options?: Signal): Promise<Channel>;
  deleteChannel(id: Int64, options?: Signal): Promise<Application>;
  addMember(channelId: Int64, user: UserRef, options?: Signal): Promise<Channel>;
  removeMember(channelId: Int64, userId: Int64, options?: Signal): Promise<Channel>;
  memberships(channelId: Int64, options?: ListOptions): AsyncIterable<Membership>;
  createUser(body: { name: string; displayName: string; isGuest: boolean; properties?: Record<string, unknown> }, options?: Signal): Promise<User>;
  deleteUser(id: Int64, options?: Signal): Promise<Application>;
  /** Channels the user created or joined. */
  userChannels(userId: Int64, options?: ListOptions): AsyncIterable<Channel>;
  /** Messages the user sent (cursor pages; client.activity.unreadMessages for what the user has not read). */
  userMessages(userId: Int64, options?: ListOptions): AsyncIterable<Message>;
  /** PATCH /messages/{id}: a merge patch of body, groupTag, properties. */
  updateMessage(id: Int64, patch: Record<string, unknown>, options?: Signal): Promise<Message>;
  /** DELETE /messages/{id}: the message and its replies; answers the thread it was in. */
  deleteMessage(id: Int64, options?: Signal): Promise<Record<string, unknown>>;
}

const MembershipPage = offsetPage('memberships', Membership);
const ChannelPage = offsetPage('channels', Channel);
const MessagePage = cursorPage('messages', Message);
const AnyObject = z.record(z.string(), z.unknown());

export function createRecordsResource(transport: Transport): RecordsResource {
  const call = (operation: string, method: CallSpec['method'], path: string, scopes: string[], o: Signal, body?: CallSpec['body']): CallSpec => ({
    operation, method, path, scopes, ...(body ? { body } : {}),
    // A POST creates: repeated only after a 429. The rest set or remove a state: repeatable.
    retry: method === 'POST' ? 'unprocessed' : 'idempotent',
    ...withSignal(o.signal),
  });
  const list = (operation: string, path: string, scopes: string[], o: ListOptions): CallSpec => ({ ...call(operation, 'GET', path, scopes, o), query: { size: checkPageSize(o.pageSize) } });
  const channel = (id: Int64) => `/channels/${checkId('channel', id)}`;
  return {
    createChannel: (body, o = {}) => transport.sendJson(call('create a channel', 'POST', '/channels', ['create:channel'], o, createJsonBody(body)), Channel),
    deleteChannel: (id, o = {}) => transport.sendJson(call(`delete channel ${id}`, 'DELETE', channel(id), ['read:channel', 'delete:channel'], o), Application),
    addMember: (id, user, o = {}) => transport.sendJson(call(`add a member to channel ${id}`, 'POST', `${channel(id)}/members`, ['read:channel', 'read:user', 'create:channel_membership'], o, createJsonBody(user)), Channel),
    removeMember: (id, userId, o = {}) =>
      transport.sendJson(call(`remove member ${userId} of channel ${id}`, 'DELETE', `${channel(id)}/members/${checkId('user', userId)}`, ['read:channel', 'read:user', 'delete:channel_membership'], o), Channel),
    memberships: (id, o = {}) => iterateItems(iteratePages(transport, list(`list memberships of channel ${id}`, `${channel(id)}/memberships`, ['read:channel', 'read:channel_membership'], o), MembershipPage, 'memberships')),
    createUser: (body, o = {}) => transport.sendJson(call('create a user', 'POST', '/users', ['create:user'], o, createJsonBody(body)), User),
    deleteUser: (id, o = {}) => transport.sendJson(call(`delete user ${id}`, 'DELETE', `/users/${checkId('user', id)}`, ['read:user', 'delete:user'], o), Application),
    userChannels: (id, o = {}) => iterateItems(iteratePages(transport, list(`list channels of user ${id}`, `/users/${checkId('user', id)}/channels`, ['read:user', 'read:channels'], o), ChannelPage, 'channels')),
    userMessages: (id, o = {}) => iterateItems(iteratePages(transport, list(`list messages of user ${id}`, `/users/${checkId('user', id)}/messages`, ['read:user', 'read:channels'], o), MessagePage, 'messages')),
    updateMessage: (id, patch, o = {}) => transport.sendJson(call(`update message ${id}`, 'PATCH', `/messages/${checkId('message', id)}`, ['read:message', 'update:message'], o, createMergePatchBody(patch)), Message),
    deleteMessage: (id, o = {}) => transport.sendJson(call(`delete message ${id}`, 'DELETE', `/messages/${checkId('message', id)}`, ['read:message', 'delete:message'], o), AnyObject),
  };
}
