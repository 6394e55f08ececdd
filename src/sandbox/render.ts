import type { ApplicationRec, ChannelRec, JobRec, MessageRec, Store, UserRec } from './store.js';

/**
 * Records → wire JSON (management-api.md §2). Fields without a value are left out, never null; times are
 * ISO 8601 UTC; `_links` hold absolute hrefs for self and the relations the description names.
 */
export const iso = (ms: number): string => new Date(ms).toISOString();

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
  ) {}

  application(app: ApplicationRec = this.store.app): Record<string, unknown> {
    const b = this.base();
    return {
      id: app.id,
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
    return compact({
      id: user.id,
      type: user.type,
      name: user.name,
      displayName: user.displayName,
      displayPictureUrl: user.displayPictureUrl,
      isGuest: user.isGuest,
      presence: { status: 'UNAVAILABLE', online: false },
      callStatus: 'AVAILABLE',
      properties: user.properties,
      createdTime: iso(user.createdTime),
      _links: compact({
        self: link(`${b}/users/${user.id}`),
        channels: link(`${b}/users/${user.id}/channels`),
        messages: link(`${b}/users/${user.id}/messages`),
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
    const self = `${b}/channels/${channel.id}`;
    return compact({
      id: channel.id,
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
    return compact({
      id: message.id,
      type: message.type,
      nestedLevel: 0,
      channelId: message.channelId,
      user: user && this.user(user),
      body: message.body,
      file: message.file,
      groupTag: message.groupTag,
      repliesCount: 0,
      properties: message.properties,
      lastEditedTime: message.lastEditedTime === undefined ? undefined : iso(message.lastEditedTime),
      createdTime: iso(message.createdTime),
      _links: {
        self: link(`${b}/messages/${message.id}`),
        channel: link(`${b}/channels/${message.channelId}`),
      },
    });
  }

  membership(channelId: number, userId: number, at: number): Record<string, unknown> {
    const b = this.base();
    return {
      createdTime: iso(at),
      _links: {
        self: link(`${b}/channels/${channelId}/members/${userId}`),
        channel: link(`${b}/channels/${channelId}`),
        user: link(`${b}/users/${userId}`),
      },
    };
  }

  /** `fileUrl`: the download address of a finished export, when there is one. */
  job(job: JobRec, fileUrl?: string): Record<string, unknown> {
    const b = this.base();
    return compact({
      id: job.id,
      type: job.type,
      state: job.state,
      createdTime: iso(job.createdTime),
      endedTime: job.endedTime === undefined ? undefined : iso(job.endedTime),
      file: fileUrl,
      _links: compact({
        self: link(`${b}/jobs/${job.id}`),
        application: link(`${b}/application`),
        file: fileUrl === undefined ? undefined : link(fileUrl),
      }),
    });
  }

  /** DELETE /messages/{id} answers a thread-shaped body (§4); the sandbox has one MAIN thread per message. */
  thread(message: MessageRec): Record<string, unknown> {
    const b = this.base();
    return {
      id: message.id,
      type: 'MAIN',
      properties: {},
      createdTime: iso(message.createdTime),
      _links: { self: link(`${b}/threads/${message.id}`), messages: link(`${b}/threads/${message.id}/messages`) },
    };
  }
}
