import type { MessageRec, Store } from './store.js';

/**
 * Threads (decisions.md "Threads"): every channel has a MAIN thread, every message a reply thread (type
 * MESSAGE). Neither needs state of its own: a thread's id is derived from its channel's or message's id
 * (MAIN 2·channel, MESSAGE 2·message + 1), so a reply thread exists as soon as its message does ("made when
 * first needed") and a 10M-message store holds no thread records. Replies are messages with `parentId`.
 */

export type ThreadRef = { type: 'MAIN'; channelId: number } | { type: 'MESSAGE'; message: MessageRec };

export const mainThreadId = (channelId: number): number => 2 * channelId;
export const replyThreadId = (messageId: number): number => 2 * messageId + 1;

/** The thread a store thread id names, when its channel or message exists. */
export function findThread(store: Store, threadId: number): ThreadRef | undefined {
  if (threadId % 2 === 0) {
    const channelId = threadId / 2;
    return store.channels.has(channelId) ? { type: 'MAIN', channelId } : undefined;
  }
  const message = store.messages.get((threadId - 1) / 2);
  return message ? { type: 'MESSAGE', message } : undefined;
}

/** The thread a message is in: its parent's reply thread, or its channel's MAIN thread. */
export function threadOf(store: Store, message: MessageRec): ThreadRef {
  const parent = message.parentId === undefined ? undefined : store.messages.get(message.parentId);
  return parent ? { type: 'MESSAGE', message: parent } : { type: 'MAIN', channelId: message.channelId };
}

/** Message ids of a thread, in list order: a channel's top-level messages, or a message's replies. */
export function threadMessageIds(store: Store, thread: ThreadRef): readonly number[] {
  return thread.type === 'MAIN' ? (store.messageIdsByChannel.get(thread.channelId) ?? []) : (store.repliesByParent.get(thread.message.id) ?? []);
}

/** 0 for a channel's messages, the parent's level plus one for a reply. */
export function nestedLevelOf(store: Store, message: MessageRec): number {
  let level = 0;
  // Parent ids only (a column read): rendering every message of a thread walks these chains.
  for (let parent = message.parentId; parent !== undefined; parent = store.messages.parentOf(parent)) level++;
  return level;
}
