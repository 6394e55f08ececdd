/**
 * The sandbox's state: plain records in Maps, with the indexes the routes and imports need (users by
 * name, channels by name and by DIRECT member set, message ids per channel in id order, idempotency keys).
 *
 * Every change goes through one of the mutation methods below, and each emits one journal op. Without a
 * data directory the journal is a no-op; with one, persistence.ts appends the ops to disk (see there).
 * Times are epoch milliseconds here and rendered as ISO 8601 UTC on the wire.
 */

import { MemoryArena, type ByteArena } from './byte-arena.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { MessageTable, readPayloadInto, uploadedPayloadText, type PayloadTokens } from './message-table.js';
import { NotificationLog, kindCode, notifiedId, type NotifiedOp } from './notification-log.js';

export type ChannelType = 'DIRECT' | 'PUBLIC' | 'PRIVATE';
export type JobState = 'PENDING' | 'RUNNING' | 'FINISHED' | 'FAILED';

export interface UserRec {
  id: number;
  name: string;
  displayName: string;
  type: 'PERSON' | 'BOT';
  isGuest: boolean;
  properties: Record<string, unknown>;
  displayPictureUrl?: string;
  createdTime: number;
}

export interface ChannelRec {
  id: number;
  type: ChannelType;
  name: string;
  displayName: string;
  creatorId?: number;
  properties: Record<string, unknown>;
  createdTime: number;
}

export interface MessageFile {
  type: 'HOSTED' | 'EXTERNAL';
  url?: string;
  name: string;
  contentType: string;
  size: number;
}

export interface MessageRec {
  id: number;
  type: string;
  channelId: number;
  userId?: number;
  body?: string;
  groupTag?: string;
  properties?: Record<string, unknown>;
  file?: MessageFile;
  createdTime: number;
  lastEditedTime?: number;
  /** A reply: the message whose reply thread holds it (threads.ts). */
  parentId?: number;
}

export interface JobRec {
  id: number;
  type: string;
  state: JobState;
  createdTime: number;
  endedTime?: number;
  /** Name of the finished export's CSV inside the exports directory. */
  exportFile?: string;
}

export interface Settings {
  guestUsers: 'DISABLED' | 'ENABLED';
  userCreatedChannels: 'DISABLED' | 'ENABLED';
}

export interface ApplicationRec {
  id: number;
  name: string;
  key: string;
  properties: Record<string, unknown>;
  createdTime: number;
}

export type KeyKind = 'user' | 'channel' | 'member' | 'message';

/** A user session (started through /_sandbox/: the Management API has no operation that starts one). */
export interface UserSessionRec {
  id: number;
  userId: number;
  state: 'ACTIVE' | 'ENDED';
  userAgent?: string;
  createdTime: number;
  endTime?: number;
}

/** A chat session: a user session in one channel (participants are the members with an ACTIVE one). */
export interface ChatSessionRec {
  id: number;
  userSessionId: number;
  channelId: number;
  state: 'ACTIVE' | 'ENDED';
  createdTime: number;
  endTime?: number;
}

/** A chat function (decisions.md "Chat functions and the runtime"); versions are kept apart. */
export interface FunctionRec {
  id: number;
  type: string;
  name: string;
  description?: string;
  enabled: boolean;
  initializeAsynchronously: boolean;
  currentVersionNumber: number;
}

export interface FunctionVersionRec {
  id: number;
  functionId: number;
  versionNumber: number;
  handlerScript: string;
  createdTime: number;
}

export interface InvocationRec {
  id: number;
  functionId: number;
  versionNumber: number;
  args: unknown;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  result?: { payload?: unknown; error?: string };
  createdTime: number;
}

export interface RuntimeRec {
  dependencies: Array<{ name: string; version: string; defaultDependency: boolean }>;
  environmentVariables: Record<string, string>;
  initializationScript: string;
}

/** A notification of a message sent through the API to another member of its channel (decisions.md). */
export interface NotificationRec {
  id: number;
  userId: number;
  messageId: number;
  channelId: number;
  type: string;
  title: string;
  body: string;
  createdTime: number;
}

/** One state change, as journaled. `-x` ops delete. */
export type StoreOp =
  | { t: 'app'; v: ApplicationRec }
  | { t: 'settings'; v: Settings }
  | { t: 'seq'; v: Record<SeqName, number> }
  | { t: 'user'; v: UserRec }
  | { t: '-user'; id: number }
  | { t: 'channel'; v: ChannelRec }
  | { t: '-channel'; id: number }
  | { t: 'member'; c: number; u: number; at: number }
  | { t: '-member'; c: number; u: number }
  | { t: 'msg'; v: MessageRec }
  | { t: '-msg'; id: number }
  | { t: 'job'; v: JobRec }
  | { t: 'key'; k: string; kind: KeyKind; id: number }
  /** User `u` read message `m` (the /_sandbox/ rehearsal surface). */
  | { t: 'read'; m: number; u: number; at: number }
  /** One send's notifications (notification-log.ts). */
  | NotifiedOp
  /** A single notification, as journals written before notification-log.ts held them; replayed, never written. */
  | { t: 'notif'; v: NotificationRec }
  | { t: 'usess'; v: UserSessionRec }
  | { t: 'csess'; v: ChatSessionRec }
  /** Channel roles and invitations: `r` moderator or invite; `-role` removes. */
  | { t: 'role'; r: 'moderator' | 'invite'; c: number; u: number; at: number }
  | { t: '-role'; r: 'moderator' | 'invite'; c: number; u: number }
  /** A user secret (any JSON value); `-secret` removes it. */
  | { t: 'secret'; u: number; name: string; value: unknown }
  | { t: '-secret'; u: number; name: string }
  | { t: 'fn'; v: FunctionRec }
  | { t: 'fnver'; v: FunctionVersionRec }
  | { t: 'invoc'; v: InvocationRec }
  | { t: 'runtime'; v: RuntimeRec };

type SeqName = 'user' | 'channel' | 'message' | 'job' | 'notification' | 'session' | 'function' | 'version' | 'invocation';

export type Journal = (op: StoreOp) => void;

/** An uploaded message's tokens and idempotency key, as message-upload-scan.ts found them. */
export interface UploadedMessage extends PayloadTokens {
  /** The idempotency key's bytes, between its quotes (-1: none): plain ASCII, so they are the key's text. */
  keyStart: number;
  keyEnd: number;
  /** The key's keyHash() (string-key-table.ts); 0 when it has none. */
  keyHash: number;
}

/** An uploaded message's idempotency key as text (undefined: none). */
export function uploadedKey(upload: Buffer, m: UploadedMessage): string | undefined {
  return m.keyStart < 0 ? undefined : upload.toString('latin1', m.keyStart, m.keyEnd);
}

/** The journal of a store kept in memory only. */
export const NO_JOURNAL: Journal = () => {};

/** The DIRECT-channel identity: its sorted member ids. */
export function directKey(memberIds: Iterable<number>): string {
  return [...memberIds].sort((a, b) => a - b).join(',');
}

export class Store {
  app: ApplicationRec;
  settings: Settings = { guestUsers: 'ENABLED', userCreatedChannels: 'ENABLED' };
  readonly users = new Map<number, UserRec>();
  readonly usersByName = new Map<string, number>();
  readonly channels = new Map<number, ChannelRec>();
  readonly channelsByName = new Map<string, number>();
  /** Member set (directKey) → the DIRECT channel an import or POST /channels finds for it. */
  readonly directByMembers = new Map<string, number>();
  /** Every DIRECT channel's member set, and each set's channels in the order they came to hold it. */
  private readonly directKeyOf = new Map<number, string>();
  private readonly directHolders = new Map<string, Set<number>>();
  /** channel id → (user id → membership time), in join order. */
  readonly members = new Map<number, Map<number, number>>();
  /** Compact columns (message-table.ts): get() builds a MessageRec each time, so treat it as a value. */
  readonly messages: MessageTable;
  /**
   * Message ids in ascending order: all messages, replies included; per channel, the channel's own (MAIN
   * thread) messages; per parent, its replies (ids are sequential, so appends keep order).
   */
  readonly messageIds: number[] = [];
  readonly messageIdsByChannel = new Map<number, number[]>();
  readonly repliesByParent = new Map<number, number[]>();
  readonly jobs = new Map<number, JobRec>();
  /** Idempotency keys share one space across the application (decisions.md). */
  readonly keys = new IdempotencyKeys();
  /** Read receipts: message id → (user id → time read), in the order read. */
  readonly receipts = new Map<number, Map<number, number>>();
  /** Each user's newest notifications, bounded (notification-log.ts). */
  readonly notifications = new NotificationLog();
  readonly userSessions = new Map<number, UserSessionRec>();
  readonly chatSessions = new Map<number, ChatSessionRec>();
  /** Channel id → (user id → time), per role. */
  readonly moderators = new Map<number, Map<number, number>>();
  readonly invites = new Map<number, Map<number, number>>();
  /** User id → (secret name → value). */
  readonly secrets = new Map<number, Map<string, unknown>>();
  readonly functions = new Map<number, FunctionRec>();
  readonly functionVersions = new Map<number, FunctionVersionRec>();
  readonly invocations = new Map<number, InvocationRec>();
  /** The Node.js runtime; undefined until first changed (its defaults are runtime/defaults.ts). */
  runtime: RuntimeRec | undefined;
  private readonly seq: Record<SeqName, number> = { user: 0, channel: 0, message: 0, job: 0, notification: 0, session: 0, function: 0, version: 0, invocation: 0 };
  /** Set by persistence; NO_JOURNAL in memory-only mode. */
  journal: Journal = NO_JOURNAL;

  /** `texts` holds the messages' bodies and properties: in memory, or in a file under `--data`. */
  constructor(app: ApplicationRec, texts: ByteArena = new MemoryArena()) {
    this.app = app;
    this.messages = new MessageTable(texts);
  }

  nextId(name: SeqName): number {
    return ++this.seq[name];
  }

  /** Applies an op without journaling it (used by replay, and by the mutators below). */
  apply(op: StoreOp): void {
    switch (op.t) {
      case 'app':
        this.app = op.v;
        break;
      case 'settings':
        this.settings = op.v;
        break;
      case 'seq':
        for (const k of Object.keys(this.seq) as SeqName[]) this.seq[k] = Math.max(this.seq[k], op.v[k] ?? 0);
        break;
      case 'user': {
        const old = this.users.get(op.v.id);
        if (old && old.name !== op.v.name) this.usersByName.delete(old.name);
        this.users.set(op.v.id, op.v);
        this.usersByName.set(op.v.name, op.v.id);
        this.seq.user = Math.max(this.seq.user, op.v.id);
        break;
      }
      case '-user': {
        const old = this.users.get(op.id);
        if (!old) break;
        this.users.delete(op.id);
        this.usersByName.delete(old.name);
        this.notifications.forgetUser(op.id);
        for (const [channelId, m] of this.members) if (m.delete(op.id) && this.channels.get(channelId)?.type === 'DIRECT') this.reindexDirect(channelId);
        // What names the user goes with them: an invite or a read receipt of nobody would list a user that 404s.
        for (const roles of [this.moderators, this.invites, this.receipts]) for (const byUser of roles.values()) byUser.delete(op.id);
        // Their sessions too (a session of nobody would list without its `user`), and the chat sessions of those.
        for (const [id, session] of this.userSessions) if (session.userId === op.id) this.userSessions.delete(id);
        this.forgetChatSessions((chat) => !this.userSessions.has(chat.userSessionId));
        break;
      }
      case 'channel': {
        const old = this.channels.get(op.v.id);
        if (old && old.name !== op.v.name) this.channelsByName.delete(old.name);
        this.channels.set(op.v.id, op.v);
        this.channelsByName.set(op.v.name, op.v.id);
        if (!this.members.has(op.v.id)) this.members.set(op.v.id, new Map());
        this.seq.channel = Math.max(this.seq.channel, op.v.id);
        break;
      }
      case '-channel': {
        const old = this.channels.get(op.id);
        if (!old) break;
        if (old.type === 'DIRECT') this.unindexDirect(op.id);
        this.channels.delete(op.id);
        this.channelsByName.delete(old.name);
        this.members.delete(op.id);
        // A chat session is a user session in this channel: it goes with it, as do the channel's roles.
        this.forgetChatSessions((chat) => chat.channelId === op.id);
        this.moderators.delete(op.id);
        this.invites.delete(op.id);
        for (const id of this.messageIdsByChannel.get(op.id) ?? []) this.deleteWithReplies(id);
        this.messageIdsByChannel.delete(op.id);
        removeWhere(this.messageIds, (id) => !this.messages.has(id));
        break;
      }
      case 'member': {
        const channel = this.channels.get(op.c);
        if (!channel) break;
        this.members.get(op.c)!.set(op.u, op.at);
        // Invites are for non-members (POST invites refuses a member): joining takes up the invite.
        this.invites.get(op.c)?.delete(op.u);
        if (channel.type === 'DIRECT') this.reindexDirect(op.c);
        break;
      }
      case '-member': {
        const m = this.members.get(op.c);
        if (!m?.has(op.u)) break;
        m.delete(op.u);
        // A moderator is a member (POST moderators refuses others): the role goes with the membership.
        this.moderators.get(op.c)?.delete(op.u);
        if (this.channels.get(op.c)?.type === 'DIRECT') this.reindexDirect(op.c);
        break;
      }
      case 'msg': {
        const isNew = !this.messages.has(op.v.id);
        this.messages.set(op.v);
        this.indexMessage(op.v, isNew);
        break;
      }
      case '-msg': {
        const old = this.messages.get(op.id);
        if (!old) break;
        this.messages.delete(op.id);
        removeSorted(this.messageIds, op.id);
        const list = old.parentId === undefined ? this.messageIdsByChannel.get(old.channelId) : this.repliesByParent.get(old.parentId);
        if (list) removeSorted(list, op.id);
        this.repliesByParent.delete(op.id);
        this.receipts.delete(op.id);
        break;
      }
      case 'job':
        this.jobs.set(op.v.id, op.v);
        this.seq.job = Math.max(this.seq.job, op.v.id);
        break;
      case 'key':
        this.keys.set(op.k, { kind: op.kind, id: op.id });
        break;
      case 'read': {
        let readers = this.receipts.get(op.m);
        if (!readers) this.receipts.set(op.m, (readers = new Map()));
        if (!readers.has(op.u)) readers.set(op.u, op.at);
        break;
      }
      case 'usess':
        this.userSessions.set(op.v.id, op.v);
        this.seq.session = Math.max(this.seq.session, op.v.id);
        break;
      case 'csess':
        this.chatSessions.set(op.v.id, op.v);
        this.seq.session = Math.max(this.seq.session, op.v.id);
        break;
      case 'role': {
        const roles = op.r === 'moderator' ? this.moderators : this.invites;
        let holders = roles.get(op.c);
        if (!holders) roles.set(op.c, (holders = new Map()));
        holders.set(op.u, op.at);
        break;
      }
      case '-role':
        (op.r === 'moderator' ? this.moderators : this.invites).get(op.c)?.delete(op.u);
        break;
      case 'secret': {
        let secrets = this.secrets.get(op.u);
        if (!secrets) this.secrets.set(op.u, (secrets = new Map()));
        secrets.set(op.name, op.value);
        break;
      }
      case '-secret':
        this.secrets.get(op.u)?.delete(op.name);
        break;
      case 'fn':
        this.functions.set(op.v.id, op.v);
        this.seq.function = Math.max(this.seq.function, op.v.id);
        break;
      case 'fnver':
        this.functionVersions.set(op.v.id, op.v);
        this.seq.version = Math.max(this.seq.version, op.v.id);
        break;
      case 'invoc':
        this.invocations.set(op.v.id, op.v);
        this.seq.invocation = Math.max(this.seq.invocation, op.v.id);
        break;
      case 'runtime':
        this.runtime = op.v;
        break;
      case 'notified':
        this.notifications.apply(op);
        if (op.u.length > 0) this.seq.notification = Math.max(this.seq.notification, notifiedId(op, op.u.length - 1));
        break;
      case 'notif': {
        const v = op.v;
        this.apply({ t: 'notified', m: v.messageId, c: v.channelId, title: v.title, body: v.body, at: v.createdTime, first: v.id, u: [v.userId], k: kindCode(v.type) });
        break;
      }
    }
  }

  /** Applies and journals. */
  change(op: StoreOp): void {
    this.apply(op);
    this.journal(op);
  }

  /**
   * Adds an imported message whose body, group tag and properties are JSON tokens in its upload
   * (message-upload-scan.ts), stored as they are, and remembers its idempotency key (read from the
   * upload's bytes too, at the slot `located` found under `layout` while it is still free). With a journal, the ops need those
   * values: they are read from the tokens and go through change() like any other.
   */
  addUploadedMessage(m: MessageRec, upload: Buffer, scanned: UploadedMessage, located: number, layout: number): void {
    if (this.journal !== NO_JOURNAL) {
      readPayloadInto(m, uploadedPayloadText(upload, scanned));
      this.change({ t: 'msg', v: m });
      const key = uploadedKey(upload, scanned);
      if (key !== undefined) this.change({ t: 'key', k: key, kind: 'message', id: m.id });
      return;
    }
    const isNew = !this.messages.has(m.id);
    this.messages.setFromUpload(m, upload, scanned);
    this.indexMessage(m, isNew);
    if (scanned.keyStart >= 0) this.keys.setLocatedUtf8(upload, scanned.keyStart, scanned.keyEnd, scanned.keyHash, located, layout, { kind: 'message', id: m.id });
  }

  /** The indexes of a message just stored: in id order overall, per channel or per parent thread. */
  private indexMessage(m: MessageRec, isNew: boolean): void {
    if (isNew) {
      insertSorted(this.messageIds, m.id);
      const index = m.parentId === undefined ? this.messageIdsByChannel : this.repliesByParent;
      const at = m.parentId ?? m.channelId;
      let list = index.get(at);
      if (!list) index.set(at, (list = []));
      insertSorted(list, m.id);
    }
    this.seq.message = Math.max(this.seq.message, m.id);
  }

  /** Every record as ops, for a snapshot. */
  *dump(): Generator<StoreOp> {
    yield { t: 'app', v: this.app };
    yield { t: 'settings', v: this.settings };
    yield { t: 'seq', v: { ...this.seq } };
    for (const v of this.users.values()) yield { t: 'user', v };
    for (const v of this.channels.values()) yield { t: 'channel', v };
    for (const [c, m] of this.members) for (const [u, at] of m) yield { t: 'member', c, u, at };
    for (const id of this.messageIds) yield { t: 'msg', v: this.messages.get(id)! };
    for (const v of this.jobs.values()) yield { t: 'job', v };
    for (const [k, { kind, id }] of this.keys.entries()) yield { t: 'key', k, kind, id };
    for (const [m, readers] of this.receipts) for (const [u, at] of readers) yield { t: 'read', m, u, at };
    yield* this.notifications.dump((m) => this.messages.has(m));
    for (const v of this.userSessions.values()) yield { t: 'usess', v };
    for (const v of this.chatSessions.values()) yield { t: 'csess', v };
    for (const [r, roles] of [['moderator', this.moderators], ['invite', this.invites]] as const)
      for (const [c, holders] of roles) for (const [u, at] of holders) yield { t: 'role', r, c, u, at };
    for (const [u, secrets] of this.secrets) for (const [name, value] of secrets) yield { t: 'secret', u, name, value };
    for (const v of this.functions.values()) yield { t: 'fn', v };
    for (const v of this.functionVersions.values()) yield { t: 'fnver', v };
    for (const v of this.invocations.values()) yield { t: 'invoc', v };
    if (this.runtime) yield { t: 'runtime', v: this.runtime };
  }

  userByName(name: string): UserRec | undefined {
    const id = this.usersByName.get(name);
    return id === undefined ? undefined : this.users.get(id);
  }

  channelByName(name: string): ChannelRec | undefined {
    const id = this.channelsByName.get(name);
    return id === undefined ? undefined : this.channels.get(id);
  }

  /** A user with an ACTIVE user session is online (decisions.md "Enumerations": presence). */
  isOnline(userId: number): boolean {
    for (const session of this.userSessions.values()) if (session.userId === userId && session.state === 'ACTIVE') return true;
    return false;
  }

  lastMessageOf(channelId: number): MessageRec | undefined {
    const list = this.messageIdsByChannel.get(channelId);
    return list && list.length > 0 ? this.messages.get(list[list.length - 1]!) : undefined;
  }

  private forgetChatSessions(gone: (chat: ChatSessionRec) => boolean): void {
    for (const [id, chat] of this.chatSessions) if (gone(chat)) this.chatSessions.delete(id);
  }

  /** A message and, depth first, every reply under it (the channel's indexes are the caller's). */
  private deleteWithReplies(id: number): void {
    for (const reply of this.repliesByParent.get(id) ?? []) this.deleteWithReplies(reply);
    this.repliesByParent.delete(id);
    this.receipts.delete(id);
    this.messages.delete(id);
  }

  /** Moves a DIRECT channel's index entries to its current member set (none while it has no members). */
  private reindexDirect(channelId: number): void {
    const m = this.members.get(channelId);
    const key = m && m.size > 0 ? directKey(m.keys()) : undefined;
    if (key === this.directKeyOf.get(channelId)) return; // same set (a member's time rewritten): keep its place
    this.unindexDirect(channelId);
    if (key !== undefined) this.indexDirect(channelId, key);
  }

  /**
   * A set of members has one DIRECT channel: the first to hold it keeps it. A channel's members are added
   * one at a time, so while {a, b, c} is being built it passes through {a, b}; that partial set must not
   * take over from an existing {a, b} channel.
   */
  private indexDirect(channelId: number, key: string): void {
    this.directKeyOf.set(channelId, key);
    const holders = this.directHolders.get(key);
    if (holders) holders.add(channelId);
    else this.directHolders.set(key, new Set([channelId]));
    if (!this.directByMembers.has(key)) this.directByMembers.set(key, channelId);
  }

  /**
   * Drops the channel from its member set. If it was the set's channel, the next channel holding the same
   * set (say {a, b, c} left with {a, b} when c was deleted) takes its place, so the set stays findable.
   */
  private unindexDirect(channelId: number): void {
    const key = this.directKeyOf.get(channelId);
    if (key === undefined) return;
    this.directKeyOf.delete(channelId);
    const holders = this.directHolders.get(key)!;
    holders.delete(channelId);
    if (holders.size === 0) this.directHolders.delete(key);
    if (this.directByMembers.get(key) !== channelId) return;
    const next = holders.values().next();
    if (next.done) this.directByMembers.delete(key);
    else this.directByMembers.set(key, next.value);
  }
}

/** Appends in O(1) when ids arrive in order (the usual case), else inserts in place. */
function insertSorted(list: number[], id: number): void {
  if (list.length === 0 || list[list.length - 1]! < id) {
    list.push(id);
    return;
  }
  list.splice(lowerBound(list, id), 0, id);
}

function removeSorted(list: number[], id: number): void {
  const i = lowerBound(list, id);
  if (list[i] === id) list.splice(i, 1);
}

function removeWhere(list: number[], drop: (id: number) => boolean): void {
  let w = 0;
  for (const id of list) if (!drop(id)) list[w++] = id;
  list.length = w;
}

/** First index whose value is >= id. */
export function lowerBound(list: readonly number[], id: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
