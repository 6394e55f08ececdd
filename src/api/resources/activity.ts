import type { Int64 } from '../../shared/int64.js';
import { Keystrokes, Message, Notification, ReadReceipt, ReadReceiptSummary, cursorPage, offsetPage } from '../../wire/resources.js';
import type { CallSpec, Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { createJsonBody } from '../http/body.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';

/**
 * What people do with messages (management-api.md §4, decisions.md): read receipts and their summaries,
 * a user's notifications and unread messages, typing keystrokes in a channel or a thread.
 */
export interface ActivityResource {
  readReceipts(messageId: Int64, options?: ListOptions): AsyncIterable<ReadReceipt>;
  readReceiptSummaries(options?: ListOptions): AsyncIterable<ReadReceiptSummary>;
  /** Newest first (cursor pages). */
  notifications(userId: Int64, options?: ListOptions): AsyncIterable<Notification>;
  /** Messages of the user's channels sent by others that the user has not read. */
  unreadMessages(userId: Int64, options?: ListOptions): AsyncIterable<Message>;
  keystrokes(target: { channelId: Int64 } | { threadId: Int64 }, body: { keys: string; user: { username: string } | { id: Int64 } }, options?: { signal?: AbortSignal }): Promise<Keystrokes>;
}

const ReceiptPage = offsetPage('receipts', ReadReceipt);
const SummaryPage = offsetPage('summaries', ReadReceiptSummary);
const NotificationPage = cursorPage('notifications', Notification);
const MessagePage = cursorPage('messages', Message);

export function createActivityResource(transport: Transport): ActivityResource {
  const list = (spec: Omit<CallSpec, 'method' | 'retry'>, options: ListOptions) => ({
    ...spec,
    method: 'GET' as const,
    retry: 'idempotent' as const,
    query: { size: checkPageSize(options.pageSize), ...spec.query },
    ...withSignal(options.signal),
  });
  return {
    readReceipts: (messageId, options = {}) =>
      iterateItems(iteratePages(transport, list({ operation: `list read receipts of message ${messageId}`, path: `/messages/${checkId('message', messageId)}/read-receipts`, scopes: ['read:message', 'read:read_receipt'] }, options), ReceiptPage, 'receipts')),
    readReceiptSummaries: (options = {}) =>
      iterateItems(iteratePages(transport, list({ operation: 'list read receipt summaries', path: '/application/message-read-receipt-summaries', scopes: ['read:application', 'read:message'] }, options), SummaryPage, 'summaries')),
    notifications: (userId, options = {}) =>
      iterateItems(iteratePages(transport, list({ operation: `list notifications of user ${userId}`, path: `/users/${checkId('user', userId)}/notifications`, scopes: ['read:user', 'read:notifications'] }, options), NotificationPage, 'notifications')),
    unreadMessages: (userId, options = {}) =>
      iterateItems(
        iteratePages(transport, list({ operation: `list unread messages of user ${userId}`, path: `/users/${checkId('user', userId)}/messages`, query: { unread: 'true' }, scopes: ['read:user', 'read:channels'] }, options), MessagePage, 'messages'),
      ),
    keystrokes: (target, body, options = {}) => {
      const path = 'channelId' in target ? `/channels/${checkId('channel', target.channelId)}/keystrokes` : `/threads/${checkId('thread', target.threadId)}/keystrokes`;
      const scopes = ['channelId' in target ? 'read:channel' : 'read:thread', 'read:user', 'create:keystrokes'];
      // Keystrokes change nothing that a repeat could double.
      return transport.sendJson({ operation: `send keystrokes (${path})`, method: 'POST', path, body: createJsonBody(body, 'application/json'), scopes, retry: 'idempotent', ...withSignal(options.signal) }, Keystrokes);
    },
  };
}
