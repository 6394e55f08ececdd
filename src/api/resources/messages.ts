import type { Int64 } from '../../shared/int64.js';
import { createMergePatchBody } from '../http/body.js';
import { Application, Message, Thread, cursorPage } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';

const MessagePage = cursorPage('messages', Message);

export interface MessagesResource {
  /** Every message of the application (cursor pages, following links only). */
  list(options?: ListOptions & { username?: string; query?: string }): AsyncIterable<Message>;
  get(id: Int64, options?: { signal?: AbortSignal }): Promise<Message>;
  /** PATCH /messages/{id} with a JSON merge patch (`null` removes groupTag or a property); answers the updated message. */
  update(id: Int64, patch: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<Message>;
  /** DELETE /messages: every message of the application (decisions.md); answers the Application. */
  deleteAll(options?: { signal?: AbortSignal }): Promise<Application>;
  /** DELETE /messages/{id}: the message and its replies (decisions.md); answers the thread it was in. */
  delete(id: Int64, options?: { signal?: AbortSignal }): Promise<Thread>;
}

export function createMessagesResource(transport: Transport): MessagesResource {
  return {
    list(options = {}) {
      const query = { size: checkPageSize(options.pageSize), username: options.username, query: options.query };
      return iterateItems<Message>(
        iteratePages(transport, { operation: 'list messages', method: 'GET', path: '/messages', query, scopes: ['read:message'], retry: 'idempotent', ...withSignal(options.signal) }, MessagePage, 'messages'),
      );
    },
    get: (id, options = {}) =>
      transport.sendJson(
        { operation: `get message ${id}`, method: 'GET', path: `/messages/${checkId('message', id)}`, scopes: ['read:message'], retry: 'idempotent', ...withSignal(options.signal) },
        Message,
      ),
    update: (id, patch, options = {}) =>
      transport.sendJson(
        // A merge patch sent twice leaves the same message: safe to repeat.
        {
          operation: `update message ${id}`, method: 'PATCH', path: `/messages/${checkId('message', id)}`, body: createMergePatchBody(patch),
          scopes: ['read:message', 'update:message'], retry: 'idempotent', ...withSignal(options.signal),
        },
        Message,
      ),
    deleteAll: (options = {}) =>
      transport.sendJson({ operation: 'delete every message', method: 'DELETE', path: '/messages', scopes: ['read:message', 'delete:message'], retry: 'idempotent', ...withSignal(options.signal) }, Application),
    delete: (id, options = {}) =>
      transport.sendJson(
        { operation: `delete message ${id}`, method: 'DELETE', path: `/messages/${checkId('message', id)}`, scopes: ['read:message', 'delete:message'], retry: 'idempotent', ...withSignal(options.signal) },
        Thread,
      ),
  };
}
