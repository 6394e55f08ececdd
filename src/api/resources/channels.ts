import { Channel, Message, User, cursorPage, offsetPage } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { createJsonBody, createMergePatchBody } from '../http/body.js';
import type { SendMessageBody } from './threads.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';
import type { Int64 } from '../../shared/int64.js';

const ChannelPage = offsetPage('channels', Channel);
const MemberPage = offsetPage('users', User);
const MessagePage = cursorPage('messages', Message);

export interface ChannelFilter extends ListOptions {
  type?: 'DIRECT' | 'PUBLIC' | 'PRIVATE';
  /** Channels whose members include all these usernames (decisions.md). */
  members?: readonly string[];
  /** Created within [startTime, endTime] (ISO 8601). */
  startTime?: string;
  endTime?: string;
  /** Channels whose properties contain every given key with an equal value (decisions.md). */
  properties?: Record<string, unknown>;
}

export interface ChannelsResource {
  list(filter?: ChannelFilter): AsyncIterable<Channel>;
  get(id: Int64, options?: { signal?: AbortSignal }): Promise<Channel>;
  /** PATCH /channels/{id} with a JSON merge patch (`null` removes a field); answers the updated channel. */
  update(id: Int64, patch: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<Channel>;
  /** Members of a group channel, page by page. */
  members(id: Int64, options?: ListOptions): AsyncIterable<User>;
  /** Messages of one channel (cursor pages). */
  messages(id: Int64, options?: ListOptions & { username?: string; query?: string }): AsyncIterable<Message>;
  /** POST /channels/{id}/messages: no idempotency key, so repeated only after a 429 (see threads.send). */
  sendMessage(id: Int64, body: SendMessageBody, options?: { signal?: AbortSignal }): Promise<Message>;
}

export function createChannelsResource(transport: Transport): ChannelsResource {
  return {
    list(filter = {}) {
      const query = {
        size: checkPageSize(filter.pageSize),
        type: filter.type,
        members: filter.members,
        startTime: filter.startTime,
        endTime: filter.endTime,
        properties: filter.properties === undefined ? undefined : JSON.stringify(filter.properties),
      };
      return iterateItems<Channel>(
        iteratePages(transport, { operation: 'list channels', method: 'GET', path: '/channels', query, scopes: ['read:channel'], retry: 'idempotent', ...withSignal(filter.signal) }, ChannelPage, 'channels'),
      );
    },
    get: (id, options = {}) =>
      transport.sendJson(
        { operation: `get channel ${id}`, method: 'GET', path: `/channels/${checkId('channel', id)}`, scopes: ['read:channel'], retry: 'idempotent', ...withSignal(options.signal) },
        Channel,
      ),
    update: (id, patch, options = {}) =>
      transport.sendJson(
        // A merge patch sent twice leaves the same record: safe to repeat.
        {
          operation: `update channel ${id}`, method: 'PATCH', path: `/channels/${checkId('channel', id)}`, body: createMergePatchBody(patch),
          scopes: ['read:channel', 'update:channel'], retry: 'idempotent', ...withSignal(options.signal),
        },
        Channel,
      ),
    members(id, options = {}) {
      const spec = {
        operation: `list the members of channel ${id}`,
        method: 'GET' as const,
        path: `/channels/${checkId('channel', id)}/members`,
        query: { size: checkPageSize(options.pageSize) },
        scopes: ['read:channel', 'read:channel_membership'],
        retry: 'idempotent' as const,
        ...withSignal(options.signal),
      };
      return iterateItems<User>(iteratePages(transport, spec, MemberPage, 'users'));
    },
    messages(id, options = {}) {
      const spec = {
        operation: `list the messages of channel ${id}`,
        method: 'GET' as const,
        path: `/channels/${checkId('channel', id)}/messages`,
        query: { size: checkPageSize(options.pageSize), username: options.username, query: options.query },
        scopes: ['read:channel', 'read:message'],
        retry: 'idempotent' as const,
        ...withSignal(options.signal),
      };
      return iterateItems<Message>(iteratePages(transport, spec, MessagePage, 'messages'));
    },
    sendMessage: (id, body, options = {}) =>
      transport.sendJson(
        {
          operation: `send a message to channel ${id}`,
          method: 'POST',
          path: `/channels/${checkId('channel', id)}/messages`,
          body: createJsonBody(body),
          scopes: ['read:channel', 'read:user', 'create:message'],
          retry: 'unprocessed',
          ...withSignal(options.signal),
        },
        Message,
      ),
  };
}
