import type { Int64 } from '../../shared/int64.js';
import { Message, Thread, cursorPage } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { createJsonBody } from '../http/body.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';

const MessagePage = cursorPage('messages', Message);

/** The create-message body of a thread or channel send (management-api.md §2). */
export interface SendMessageBody {
  type: string;
  body?: string;
  groupTag?: string;
  properties?: Record<string, unknown>;
  user?: { username: string } | { id: Int64 };
}

export interface ThreadsResource {
  get(id: Int64, options?: { signal?: AbortSignal }): Promise<Thread>;
  /** The thread's messages in list order (cursor pages). */
  messages(id: Int64, options?: ListOptions): AsyncIterable<Message>;
  /**
   * POST /threads/{id}/messages. It has no idempotency key, so it is repeated only when the platform says it
   * did not take it (429); after any other failure the outcome is unknown and the caller must look in the
   * thread before sending again.
   */
  send(id: Int64, body: SendMessageBody, options?: { signal?: AbortSignal }): Promise<Message>;
}

const READ = ['read:thread', 'read:message'];

export function createThreadsResource(transport: Transport): ThreadsResource {
  return {
    get: (id, options = {}) =>
      transport.sendJson({ operation: `get thread ${id}`, method: 'GET', path: `/threads/${checkId('thread', id)}`, scopes: ['read:thread'], retry: 'idempotent', ...withSignal(options.signal) }, Thread),
    messages(id, options = {}) {
      const query = { size: checkPageSize(options.pageSize) };
      const path = `/threads/${checkId('thread', id)}/messages`;
      return iterateItems<Message>(iteratePages(transport, { operation: `list thread ${id} messages`, method: 'GET', path, query, scopes: READ, retry: 'idempotent', ...withSignal(options.signal) }, MessagePage, 'messages'));
    },
    send: (id, body, options = {}) =>
      transport.sendJson(
        {
          operation: `send a message to thread ${id}`,
          method: 'POST',
          path: `/threads/${checkId('thread', id)}/messages`,
          body: createJsonBody(body),
          scopes: ['read:thread', 'read:user', 'create:message'],
          retry: 'unprocessed',
          ...withSignal(options.signal),
        },
        Message,
      ),
  };
}
