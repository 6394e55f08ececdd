import type { SandboxApp } from './app.js';
import { findMentions } from './mentions.js';
import { kindCode, notifiedId, notifiedOp, type NotificationKind, type NotifiedOp } from './notification-log.js';
import type { MessageRec } from './store.js';

/**
 * What a message sent through the API sets off (decisions.md "Sessions, notifications, read receipts"):
 * a notification to every other member of its channel, and the chat functions of `user.sent.message` and
 * `user.received.notification`. Imports never come here: a migration must not fire millions of them.
 *
 * A send is all or nothing: `notificationsOf` works out everything first and changes nothing but the id
 * counter, then `commitSend` applies the message and its notifications, neither of which can fail halfway.
 */
export function notificationsOf(app: SandboxApp, message: MessageRec): NotifiedOp | undefined {
  const store = app.store;
  const channel = store.channels.get(message.channelId);
  if (!channel) return undefined;
  const sender = message.userId === undefined ? undefined : store.users.get(message.userId);
  const mentions = findMentions(store, message.body);
  const mentioned = new Set(mentions.flatMap((m) => (m.user ? [m.user.id] : [])));
  const wholeChannel = mentions.some((m) => m.type === 'CHANNEL');
  const ids: number[] = [];
  const users: number[] = [];
  const kinds: number[] = [];
  for (const userId of store.members.get(channel.id)?.keys() ?? []) {
    if (userId === message.userId) continue;
    const kind: NotificationKind = !sender
      ? 'SYSTEM:SENT:MESSAGE'
      : mentioned.has(userId)
        ? 'USER:MENTIONED:USER'
        : wholeChannel
          ? 'USER:MENTIONED:CHANNEL'
          : message.parentId !== undefined
            ? 'USER:REPLIED_TO:MESSAGE'
            : 'USER:SENT:MESSAGE';
    ids.push(store.nextId('notification'));
    users.push(userId);
    kinds.push(kindCode(kind));
  }
  if (ids.length === 0) return undefined;
  const note = { m: message.id, c: channel.id, title: sender ? sender.displayName : store.app.name, body: message.body ?? message.file?.name ?? '', at: app.clock() };
  return notifiedOp(note, ids, users, kinds);
}

/** Stores a sent message and its notifications, then runs the chat functions they set off. */
export function commitSend(app: SandboxApp, message: MessageRec, notified: NotifiedOp | undefined, sentByFunction: boolean): void {
  app.store.change({ t: 'msg', v: message });
  if (notified) app.store.change(notified);
  fireChatEvents(app, message, notified, sentByFunction);
}

/**
 * Functions run after the answer: the sender does not wait for them (their invocations record the outcome).
 * What a function sends runs no functions (runtime/context-bridge.ts).
 */
function fireChatEvents(app: SandboxApp, message: MessageRec, notified: NotifiedOp | undefined, sentByFunction: boolean): void {
  if (sentByFunction) return;
  const channel = app.store.channels.get(message.channelId);
  if (!channel) return;
  if (message.userId !== undefined && app.store.users.has(message.userId) && app.chatEvents.handles('user.sent.message'))
    void app.chatEvents.fire('user.sent.message', { message: app.render.message(message), channel: app.render.channel(channel) });
  if (!notified || !app.chatEvents.handles('user.received.notification')) return;
  for (let i = 0; i < notified.u.length; i++) {
    const n = app.store.notifications.get(notified.u[i]!, notifiedId(notified, i));
    if (n) void app.chatEvents.fire('user.received.notification', { notification: app.render.notification(n) });
  }
}
