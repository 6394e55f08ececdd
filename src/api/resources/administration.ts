import type { Int64 } from '../../shared/int64.js';
import { Channel, ChannelEvent, ChatSession, Invite, User, UserSecret, UserSession, offsetPage } from '../../wire/resources.js';
import type { CallSpec, Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { createJsonBody } from '../http/body.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';

type UserRef = { username: string } | { id: Int64 };
type Signal = { signal?: AbortSignal };

/**
 * Scripting the platform (management-api.md §4, decisions.md): channel moderators, invites, participants
 * and custom events; user secrets, display pictures and the full PUT; user and chat sessions.
 */
export interface AdministrationResource {
  moderators(channelId: Int64, options?: ListOptions): AsyncIterable<User>;
  addModerator(channelId: Int64, user: UserRef, options?: Signal): Promise<User>;
  removeModerator(channelId: Int64, userId: Int64, options?: Signal): Promise<Channel>;
  invites(channelId: Int64, options?: ListOptions): AsyncIterable<Invite>;
  invite(channelId: Int64, user: UserRef, options?: Signal): Promise<Invite>;
  /** Members with an ACTIVE chat session in the channel. */
  participants(channelId: Int64, options?: ListOptions): AsyncIterable<User>;
  sendEvent(channelId: Int64, event: { type: string; properties: Record<string, unknown>; user?: UserRef }, options?: Signal): Promise<ChannelEvent>;
  getSecret(userId: Int64, name: string, options?: Signal): Promise<UserSecret>;
  setSecret(userId: Int64, name: string, secret: unknown, options?: Signal): Promise<User>;
  deleteSecret(userId: Int64, name: string, options?: Signal): Promise<User>;
  setDisplayPicture(userId: Int64, picture: { url: string; name: string; contentType: string; size: number }, options?: Signal): Promise<User>;
  /** The older revision's full replace of a user. */
  replaceUser(userId: Int64, user: { name: string; displayName: string; isGuest: boolean; properties?: Record<string, unknown> }, options?: Signal): Promise<User>;
  userSessions(options?: ListOptions & { state?: 'ACTIVE' | 'ENDED' }): AsyncIterable<UserSession>;
  chatSessions(options?: ListOptions & { state?: 'ACTIVE' | 'ENDED' }): AsyncIterable<ChatSession>;
}

const UserPage = offsetPage('users', User);
const InvitePage = offsetPage('invites', Invite);
const UserSessionPage = offsetPage('sessions', UserSession);
const ChatSessionPage = offsetPage('sessions', ChatSession);

export function createAdministrationResource(transport: Transport): AdministrationResource {
  const list = (operation: string, path: string, scopes: string[], options: ListOptions, query: Record<string, string | undefined> = {}): CallSpec => ({
    operation, method: 'GET', path, scopes, retry: 'idempotent', query: { size: checkPageSize(options.pageSize), ...query }, ...withSignal(options.signal),
  });
  const write = (operation: string, method: 'POST' | 'PUT' | 'DELETE', path: string, scopes: string[], body: unknown, options: Signal): CallSpec => ({
    operation, method, path, scopes, ...(body === undefined ? {} : { body: createJsonBody(body) }),
    // Each of these sets a state, so a repeat is harmless, except a POST whose outcome is unknown.
    retry: method === 'POST' ? 'unprocessed' : 'idempotent',
    ...withSignal(options.signal),
  });
  const channel = (id: Int64) => `/channels/${checkId('channel', id)}`;
  const secret = (userId: Int64, name: string) => `/users/${checkId('user', userId)}/secrets/${encodeURIComponent(name)}`;
  return {
    moderators: (id, o = {}) => iterateItems(iteratePages(transport, list(`list moderators of channel ${id}`, `${channel(id)}/moderators`, ['read:channel', 'read:channel_moderator'], o), UserPage, 'users')),
    addModerator: (id, user, o = {}) => transport.sendJson(write(`make a moderator of channel ${id}`, 'POST', `${channel(id)}/moderators`, ['read:channel', 'read:user', 'read:channel_membership', 'create:channel_moderator'], user, o), User),
    removeModerator: (id, userId, o = {}) =>
      transport.sendJson(write(`remove moderator ${userId} of channel ${id}`, 'DELETE', `${channel(id)}/moderators/${checkId('user', userId)}`, ['read:channel', 'read:user', 'delete:channel_moderator'], undefined, o), Channel),
    invites: (id, o = {}) => iterateItems(iteratePages(transport, list(`list invites of channel ${id}`, `${channel(id)}/invites`, ['read:channel_invite'], o), InvitePage, 'invites')),
    invite: (id, user, o = {}) => transport.sendJson(write(`invite to channel ${id}`, 'POST', `${channel(id)}/invites`, ['read:channel', 'read:user', 'create:channel_invite'], { user }, o), Invite),
    participants: (id, o = {}) => iterateItems(iteratePages(transport, list(`list participants of channel ${id}`, `${channel(id)}/participants`, ['read:channel', 'read:chat_session'], o), UserPage, 'users')),
    sendEvent: (id, event, o = {}) => transport.sendJson(write(`send an event to channel ${id}`, 'POST', `${channel(id)}/events`, ['read:channel', 'create:channel_event'], event, o), ChannelEvent),
    getSecret: (userId, name, o = {}) =>
      transport.sendJson({ operation: `get secret of user ${userId}`, method: 'GET', path: secret(userId, name), scopes: ['read:user_secret'], retry: 'idempotent', ...withSignal(o.signal) }, UserSecret),
    setSecret: (userId, name, value, o = {}) => transport.sendJson(write(`set a secret of user ${userId}`, 'PUT', secret(userId, name), ['read:user', 'update:user_secret'], { secret: value }, o), User),
    deleteSecret: (userId, name, o = {}) => transport.sendJson(write(`delete a secret of user ${userId}`, 'DELETE', secret(userId, name), ['read:user', 'delete:user_secret'], undefined, o), User),
    setDisplayPicture: (userId, picture, o = {}) =>
      transport.sendJson(write(`set the display picture of user ${userId}`, 'POST', `/users/${checkId('user', userId)}/display-picture`, ['read:user', 'update:user'], picture, o), User),
    replaceUser: (userId, user, o = {}) => transport.sendJson(write(`replace user ${userId}`, 'PUT', `/users/${checkId('user', userId)}`, ['read:user', 'update:user'], user, o), User),
    userSessions: (o = {}) => iterateItems(iteratePages(transport, list('list user sessions', '/user-sessions', ['read:user_session'], o, { state: o.state }), UserSessionPage, 'sessions')),
    chatSessions: (o = {}) => iterateItems(iteratePages(transport, list('list chat sessions', '/chat-sessions', ['read:chat_session'], o, { state: o.state }), ChatSessionPage, 'sessions')),
  };
}
