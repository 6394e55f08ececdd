import { z } from 'zod';
import { int64 } from './int64.js';
import { fastCheckOf, withFastCheck } from './fast-check.js';
import { isPlainCursorPage, isPlainMessage } from './fast-resources.js';
import { lenientObject } from './lenient-case.js';

/**
 * Response schemas of the resources chatport reads (management-api.md §2, decisions.md).
 * Lenient on purpose (decisions.md "Wire"): unknown fields are kept (`looseObject`), snake_case names are
 * read too (`lenientObject`), enum-like fields are open strings, and fields are optional unless the client
 * cannot work without them. The sandbox builds its responses to satisfy these, and the client parses with
 * them.
 */

const dateTime = z.string();
export const Links = z.record(z.string(), z.looseObject({ href: z.string(), templated: z.boolean().optional() }));
export const Properties = z.record(z.string(), z.unknown());

export const JOB_STATES = ['PENDING', 'RUNNING', 'FINISHED', 'FAILED'] as const;
export const FINAL_JOB_STATES: ReadonlySet<string> = new Set(['FINISHED', 'FAILED']);
export const JOB_TYPES = [
  'USER_IMPORT',
  'CHANNEL_IMPORT',
  'CHANNEL_MEMBERS_IMPORT',
  'MESSAGE_IMPORT',
  'MESSAGE_ANALYTICS_EXPORT',
  'USER_ANALYTICS_EXPORT',
] as const;
export const CHANNEL_TYPES = ['DIRECT', 'PUBLIC', 'PRIVATE'] as const;

export const Application = lenientObject({
  id: int64,
  name: z.string(),
  key: z.string().optional(),
  properties: Properties.optional(),
  createdTime: dateTime.optional(),
  _links: Links.optional(),
});
export type Application = z.infer<typeof Application>;

export const ApplicationSettings = lenientObject({
  guestUsers: z.string(),
  userCreatedChannels: z.string(),
});
export type ApplicationSettings = z.infer<typeof ApplicationSettings>;

export const User = lenientObject({
  id: int64,
  type: z.string().optional(),
  name: z.string(),
  displayName: z.string().optional(),
  displayPictureUrl: z.string().optional(),
  isGuest: z.boolean().optional(),
  presence: lenientObject({ status: z.string().optional(), online: z.boolean().optional() }).optional(),
  callStatus: z.string().optional(),
  properties: Properties.optional(),
  createdTime: dateTime.optional(),
  _links: Links.optional(),
});
export type User = z.infer<typeof User>;

export const Message = withFastCheck(lenientObject({
  id: int64,
  type: z.string(),
  nestedLevel: z.number().int().optional(),
  channelId: int64.optional(),
  user: User.optional(),
  body: z.string().optional(),
  groupTag: z.string().optional(),
  repliesCount: z.number().int().optional(),
  properties: Properties.optional(),
  lastEditedTime: dateTime.optional(),
  createdTime: dateTime.optional(),
  _links: Links.optional(),
}), isPlainMessage);
export type Message = z.infer<typeof Message>;

/** A channel's MAIN thread or a message's reply thread (type MESSAGE, `_links.parent`): decisions.md "Threads". */
export const Thread = lenientObject({
  id: int64,
  type: z.string(),
  name: z.string().optional(),
  properties: Properties.optional(),
  createdTime: dateTime.optional(),
  _links: Links.optional(),
});
export type Thread = z.infer<typeof Thread>;


export const Channel = lenientObject({
  id: int64,
  type: z.string(),
  name: z.string(),
  displayName: z.string().optional(),
  creator: User.optional(),
  members: z.array(User).optional(),
  lastReceivedMessage: Message.optional(),
  properties: Properties.optional(),
  createdTime: dateTime.optional(),
  _links: Links.optional(),
});
export type Channel = z.infer<typeof Channel>;

export const Job = lenientObject({
  id: int64,
  type: z.string(),
  state: z.string(),
  createdTime: dateTime.optional(),
  endedTime: dateTime.optional(),
  /** Set on a FINISHED export job: absolute URL of the data, possibly on another origin. */
  file: z.string().optional(),
  _links: Links.optional(),
});
export type Job = z.infer<typeof Job>;

export const Membership = lenientObject({ createdTime: dateTime.optional(), _links: Links.optional() });
export type Membership = z.infer<typeof Membership>;

/** Offset page (management-api.md §2 "Page envelopes"). `_embedded` may be absent on an empty page. */
/** Who read a message and when (decisions.md "Sessions, notifications, read receipts"). */
export const ReadReceipt = lenientObject({ user: User.optional(), createdTime: dateTime.optional(), _links: Links.optional() });
export type ReadReceipt = z.infer<typeof ReadReceipt>;

/** One per message that at least one user has read (decisions.md "Enumerations and shapes"). */
export const ReadReceiptSummary = lenientObject({ messageId: int64, channelId: int64, readCount: z.number().int(), lastReadTime: dateTime.optional(), _links: Links.optional() });
export type ReadReceiptSummary = z.infer<typeof ReadReceiptSummary>;

export const Notification = lenientObject({
  id: int64,
  title: z.string().optional(),
  body: z.string().optional(),
  channel: Channel.optional(),
  data: z.looseObject({ type: z.string(), message: Message.optional(), channelId: int64.optional(), recipient: User.optional() }).optional(),
  muted: z.boolean().optional(),
  createdTime: dateTime.optional(),
  readTime: dateTime.optional(),
  _links: Links.optional(),
});
export type Notification = z.infer<typeof Notification>;

export const Keystrokes = lenientObject({ keys: z.string(), username: z.string().optional(), _links: Links.optional() });
export type Keystrokes = z.infer<typeof Keystrokes>;

/** decisions.md: an invite is `{createdTime, _links{self, channel, user}}`. */
export const Invite = lenientObject({ createdTime: dateTime.optional(), _links: Links.optional() });
export type Invite = z.infer<typeof Invite>;

export const UserSession = lenientObject({ id: int64, user: User.optional(), state: z.string(), userAgent: z.string().optional(), endTime: dateTime.optional(), createdTime: dateTime.optional(), _links: Links.optional() });
export type UserSession = z.infer<typeof UserSession>;

export const ChatSession = lenientObject({ id: int64, session: UserSession.optional(), state: z.string(), endTime: dateTime.optional(), createdTime: dateTime.optional(), _links: Links.optional() });
export type ChatSession = z.infer<typeof ChatSession>;

export const ChannelEvent = lenientObject({ type: z.string(), user: User.optional(), properties: Properties.optional(), _links: Links.optional() });
export type ChannelEvent = z.infer<typeof ChannelEvent>;

export const UserSecret = lenientObject({ secret: z.unknown(), _links: Links.optional() });
export type UserSecret = z.infer<typeof UserSecret>;

/** The chat runtime and its functions (management-api.md §2 "Chat function, version, invocation", "Chat runtime"). */
export const ChatRuntime = lenientObject({
  id: int64,
  type: z.string(),
  version: z.string().optional(),
  dependencies: z.array(z.looseObject({ name: z.string(), version: z.string(), defaultDependency: z.boolean().optional() })).optional(),
  initializationScript: z.looseObject({ script: z.string().optional() }).optional(),
  environmentVariables: z.record(z.string(), z.string()).optional(),
  _links: Links.optional(),
});
export type ChatRuntime = z.infer<typeof ChatRuntime>;

export const ChatFunction = lenientObject({ id: int64, type: z.string(), name: z.string(), enabled: z.boolean().optional(), currentVersionNumber: z.number().int().optional(), _links: Links.optional() });
export type ChatFunction = z.infer<typeof ChatFunction>;

export const FunctionVersion = lenientObject({ id: int64, versionNumber: z.number().int(), handlerScript: z.string().optional(), _links: Links.optional() });
export type FunctionVersion = z.infer<typeof FunctionVersion>;

export const Invocation = lenientObject({ id: int64, versionNumber: z.number().int().optional(), args: z.unknown(), status: z.string(), result: z.looseObject({ payload: z.unknown().optional(), error: z.string().optional() }).optional(), createdTime: dateTime.optional(), _links: Links.optional() });
export type Invocation = z.infer<typeof Invocation>;

export function offsetPage<T extends z.ZodType>(kind: string, item: T) {
  return z.looseObject({
    _embedded: z.looseObject({ [kind]: z.array(item) }).optional(),
    _links: Links.optional(),
    page: lenientObject({
      size: z.number().int(),
      totalElements: z.number().int(),
      totalPages: z.number().int(),
      number: z.number().int(),
    }),
  });
}

/** Cursor page: links carry the cursors; `page` holds only `size`. */
export function cursorPage<T extends z.ZodType>(kind: string, item: T) {
  const page = z.looseObject({
    _embedded: z.looseObject({ [kind]: z.array(item) }).optional(),
    _links: Links.optional(),
    page: lenientObject({ size: z.number().int() }).optional(),
  });
  const isPlainItem = fastCheckOf(item);
  return isPlainItem === undefined ? page : withFastCheck(page, (value) => isPlainCursorPage(value, kind, isPlainItem));
}

/** OAuth 2.0 client-credentials token response (decisions.md "Authentication"). */
export const TokenResponse = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;
