import { findMentions } from './mentions.js';
import { mainThreadId, nestedLevelOf, replyThreadId, type ThreadRef } from './threads.js';
import type { WireIds } from './wire-ids.js';
import type { ApplicationRec, ChannelRec, ChatSessionRec, JobRec, MessageRec, NotificationRec, Store, UserRec, UserSessionRec } from './store.js';

/**
 * Records → wire JSON (management-api.md §2). Fields without a value are left out, never null; times are
 * ISO 8601 UTC; `_links` hold absolute hrefs for self and the relations the description names. Every id,
 * in fields and in links, is the wire id (`ids.toWire`: the store's id plus the optional id base).
 */
export function iso(ms: number): string {
  if (Number.isInteger(ms)) return new Date(ms).toISOString();
  // A clock with sub-millisecond digits (wire rule 4: fractional seconds may appear) keeps its microseconds;
  // Date alone would truncate them toward zero, moving a time before 1970 into the next millisecond.
  const micros = Math.round(ms * 1000);
  const millis = Math.floor(micros / 1000);
  const rest = micros - millis * 1000;
  const text = new Date(millis).toISOString();
  return rest === 0 ? text : `${text.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}

const link = (href: string) => ({ href });

/** Drops undefined fields so JSON never carries a null in their place. */
function compact<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}

export class Renderer {
  constructor(
    private readonly store: Store,
    private readonly base: () => string,
    private readonly ids: WireIds,
  ) {}

  application(app: ApplicationRec = this.store.app): Record<string, unknown> {
    const b = this.base();
    return {
      id: this.ids.toWire(app.id),
      name: app.name,
      key: app.key,
      properties: app.properties,
      createdTime: iso(app.createdTime),
      _links: {
        self: link(`${b}/application`),
        settings: link(`${b}/application/settings`),
        users: link(`${b}/users`),
        channels: link(`${b}/channels`),
        jobs: link(`${b}/jobs`),
      },
    };
  }

  user(user: UserRec): Record<string, unknown> {
    const b = this.base();
    const id = this.ids.toWire(user.id);
    return compact({
      id,
      type: user.type,
      name: user.name,
      displayName: user.displayName,
      displayPictureUrl: user.displayPictureUrl,
      isGuest: user.isGuest,
      presence: this.store.isOnline(user.id) ? { status: 'AVAILABLE', online: true } : { status: 'UNAVAILABLE', online: false },
      callStatus: 'AVAILABLE',
      properties: user.properties,
      createdTime: iso(user.createdTime),
      _links: compact({
        self: link(`${b}/users/${id}`),
        channels: link(`${b}/users/${id}/channels`),
        messages: link(`${b}/users/${id}/messages`),
        displayPicture: user.displayPictureUrl === undefined ? undefined : link(user.displayPictureUrl),
      }),
    });
  }

  channel(channel: ChannelRec): Record<string, unknown> {
    const b = this.base();
    const s = this.store;
    const creator = channel.creatorId === undefined ? undefined : s.users.get(channel.creatorId);
    const last = s.lastMessageOf(channel.id);
    const members =
      channel.type === 'DIRECT'
        ? [...(s.members.get(channel.id)?.keys() ?? [])].flatMap((id) => {
            const u = s.users.get(id);
            return u ? [this.user(u)] : [];
          })
        : undefined;
    const id = this.ids.toWire(channel.id);
    const self = `${b}/channels/${id}`;
    return compact({
      id,
      type: channel.type,
      name: channel.name,
      displayName: channel.displayName,
      creator: creator && this.user(creator),
      members,
      lastReceivedMessage: last && this.message(last),
      properties: channel.properties,
      createdTime: iso(channel.createdTime),
      _links: {
        self: link(self),
        participants: link(`${self}/participants`),
        members: link(`${self}/members`),
        memberships: link(`${self}/memberships`),
        messages: link(`${self}/messages`),
      },
    });
  }

  message(message: MessageRec): Record<string, unknown> {
    const b = this.base();
    const user = message.userId === undefined ? undefined : this.store.users.get(message.userId);
    const id = this.ids.toWire(message.id);
    const channelId = this.ids.toWire(message.channelId);
    return compact({
      id,
      type: message.type,
      nestedLevel: nestedLevelOf(this.store, message),
      channelId,
      user: user && this.user(user),
      body: message.body,
      file: message.file,
      groupTag: message.groupTag,
      mentions: this.mentions(message.body),
      repliesCount: this.store.repliesByParent.get(message.id)?.length ?? 0,
      properties: message.properties,
      lastEditedTime: message.lastEditedTime === undefined ? undefined : iso(message.lastEditedTime),
      createdTime: iso(message.createdTime),
      _links: {
        self: link(`${b}/messages/${id}`),
        channel: link(`${b}/channels/${channelId}`),
        replies: link(`${b}/threads/${this.ids.toWire(replyThreadId(message.id))}`),
      },
    });
  }

  membership(channelId: number, userId: number, at: number): Record<string, unknown> {
    const b = this.base();
    const channel = this.ids.toWire(channelId);
    const user = this.ids.toWire(userId);
    return {
      createdTime: iso(at),
      _links: {
        // No operation reads one membership (§4 has only DELETE at /members/{user_id}): self is the list holding it, as for invites.
        self: link(`${b}/channels/${channel}/memberships`),
        channel: link(`${b}/channels/${channel}`),
        user: link(`${b}/users/${user}`),
      },
    };
  }

  /** `fileUrl`: the download address of a finished export, when there is one. */
  job(job: JobRec, fileUrl?: string): Record<string, unknown> {
    const b = this.base();
    const id = this.ids.toWire(job.id);
    return compact({
      id,
      type: job.type,
      state: job.state,
      createdTime: iso(job.createdTime),
      endedTime: job.endedTime === undefined ? undefined : iso(job.endedTime),
      file: fileUrl,
      _links: compact({
        self: link(`${b}/jobs/${id}`),
        application: link(`${b}/application`),
        file: fileUrl === undefined ? undefined : link(fileUrl),
      }),
    });
  }

  private mentions(body: string | undefined): Array<Record<string, unknown>> | undefined {
    const found = findMentions(this.store, body);
    if (found.length === 0) return undefined;
    return found.map((m) => compact({ type: m.type, tag: m.tag, startPosition: m.startPosition, endPosition: m.endPosition, user: m.user && this.user(m.user) }));
  }

  userSession(session: UserSessionRec): Record<string, unknown> {
    const b = this.base();
    const user = this.store.users.get(session.userId);
    const id = this.ids.toWire(session.id);
    return compact({
      id,
      user: user && this.user(user),
      state: session.state,
      userAgent: session.userAgent,
      endTime: session.endTime === undefined ? undefined : iso(session.endTime),
      createdTime: iso(session.createdTime),
      // No operation reads one session (decisions.md gives only the lists): links to what answers, no self.
      _links: { user: link(`${b}/users/${this.ids.toWire(session.userId)}`) },
    });
  }

  chatSession(session: ChatSessionRec): Record<string, unknown> {
    const b = this.base();
    const userSession = this.store.userSessions.get(session.userSessionId);
    const id = this.ids.toWire(session.id);
    return compact({
      id,
      session: userSession && this.userSession(userSession),
      state: session.state,
      endTime: session.endTime === undefined ? undefined : iso(session.endTime),
      createdTime: iso(session.createdTime),
      _links: { channel: link(`${b}/channels/${this.ids.toWire(session.channelId)}`) },
    });
  }

  /** decisions.md: an invite is `{createdTime, _links{self, channel, user}}`. */
  invite(channelId: number, userId: number, at: number): Record<string, unknown> {
    const b = this.base();
    const channel = this.ids.toWire(channelId);
    const user = this.ids.toWire(userId);
    return {
      createdTime: iso(at),
      _links: { self: link(`${b}/channels/${channel}/invites`), channel: link(`${b}/channels/${channel}`), user: link(`${b}/users/${user}`) },
    };
  }

  /** A read receipt: who read the message and when. */
  receipt(messageId: number, userId: number, at: number): Record<string, unknown> {
    const b = this.base();
    const user = this.store.users.get(userId);
    const message = this.ids.toWire(messageId);
    return compact({
      user: user && this.user(user),
      createdTime: iso(at),
      _links: { message: link(`${b}/messages/${message}`), user: link(`${b}/users/${this.ids.toWire(userId)}`) },
    });
  }

  notification(n: NotificationRec): Record<string, unknown> {
    const b = this.base();
    const channel = this.store.channels.get(n.channelId);
    const message = this.store.messages.get(n.messageId);
    const recipient = this.store.users.get(n.userId);
    const userId = this.ids.toWire(n.userId);
    return compact({
      id: this.ids.toWire(n.id),
      title: n.title,
      body: n.body,
      channel: channel && this.channel(channel),
      data: compact({ type: n.type, message: message && this.message(message), channelId: this.ids.toWire(n.channelId), recipient: recipient && this.user(recipient) }),
      muted: false,
      createdTime: iso(n.createdTime),
      _links: { user: link(`${b}/users/${userId}`), notifications: link(`${b}/users/${userId}/notifications`) },
    });
  }

  /** A thread (threads.ts): a channel's MAIN thread, or a message's reply thread with its parent. */
  thread(thread: ThreadRef): Record<string, unknown> {
    const b = this.base();
    const storeId = thread.type === 'MAIN' ? mainThreadId(thread.channelId) : replyThreadId(thread.message.id);
    const id = this.ids.toWire(storeId);
    const channelId = this.ids.toWire(thread.type === 'MAIN' ? thread.channelId : thread.message.channelId);
    const createdTime = thread.type === 'MAIN' ? this.store.channels.get(thread.channelId)?.createdTime : thread.message.createdTime;
    return compact({
      id,
      type: thread.type,
      properties: {},
      createdTime: createdTime === undefined ? undefined : iso(createdTime),
      _links: {
        self: link(`${b}/threads/${id}`),
        messages: link(`${b}/threads/${id}/messages`),
        channel: link(`${b}/channels/${channelId}`),
        ...(thread.type === 'MESSAGE' ? { parent: link(`${b}/messages/${this.ids.toWire(thread.message.id)}`) } : {}),
      },
    });
  }
}
