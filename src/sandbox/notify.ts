import type { SandboxApp } from './app.js';
import { findMentions } from './mentions.js';
import type { MessageRec, NotificationRec } from './store.js';

/**
 * What a message sent through the API sets off (decisions.md "Sessions, notifications, read receipts"):
 * a notification to every other member of its channel, and the chat functions of `user.sent.message` and
 * `user.received.notification`. Imports never come here: a migration must not fire millions of them.
 */
export function afterMessageSent(app: SandboxApp, message: MessageRec, sentByFunction = false): void {
  const store = app.store;
  const channel = store.channels.get(message.channelId);
  if (!channel) return;
  const sender = message.userId === undefined ? undefined : store.users.get(message.userId);
  const mentions = findMentions(store, message.body);
  const mentioned = new Set(mentions.flatMap((m) => (m.user ? [m.user.id] : [])));
  const wholeChannel = mentions.some((m) => m.type === 'CHANNEL');
  const notifications: NotificationRec[] = [];
  for (const userId of store.members.get(channel.id)?.keys() ?? []) {
    if (userId === message.userId) continue;
    const type = !sender
      ? 'SYSTEM:SENT:MESSAGE'
      : mentioned.has(userId)
        ? 'USER:MENTIONED:USER'
        : wholeChannel
          ? 'USER:MENTIONED:CHANNEL'
          : message.parentId !== undefined
            ? 'USER:REPLIED_TO:MESSAGE'
            : 'USER:SENT:MESSAGE';
    const notification: NotificationRec = {
      id: store.nextId('notification'),
      userId,
      messageId: message.id,
      channelId: channel.id,
      type,
      title: sender ? sender.displayName : app.store.app.name,
      body: message.body ?? message.file?.name ?? '',
      createdTime: app.clock(),
    };
    store.change({ t: 'notif', v: notification });
    notifications.push(notification);
  }
  // Functions run after the answer: the sender does not wait for them (their invocations record the outcome).
  // What a function sends runs no functions (runtime/context-bridge.ts).
  if (sentByFunction) return;
  if (sender && app.chatEvents.handles('user.sent.message')) void app.chatEvents.fire('user.sent.message', { message: app.render.message(message), channel: app.render.channel(channel) });
  if (!app.chatEvents.handles('user.received.notification')) return;
  for (const n of notifications) void app.chatEvents.fire('user.received.notification', { notification: app.render.notification(n) });
}
