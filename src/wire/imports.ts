import { z } from 'zod';
import { positiveInt64 } from './int64.js';

/**
 * The records inside import files (decisions.md "Import files"). Strict: an item with any field not in
 * the table is invalid, because the platform would refuse it or drop the field and lose data.
 * Shared by the pipeline (validation before upload) and the sandbox (validation on ingest).
 *
 * Limits the description does not give are project decisions, recorded in docs/architecture.md ("Limits the description does not give").
 */
export const LIMITS = {
  /** Longest username or channel name accepted. */
  nameLength: 128,
  displayNameLength: 256,
  /** Longest message body, in UTF-16 code units. */
  bodyLength: 40_000,
  idempotencyKeyLength: 256,
  /** DIRECT channels: 2 to 10 members (decisions.md). */
  directMembersMin: 2,
  directMembersMax: 10,
} as const;

const name = z.string().min(1).max(LIMITS.nameLength);
const idempotencyKey = z.string().min(1).max(LIMITS.idempotencyKeyLength);
const properties = z.record(z.string(), z.unknown());

export const DisplayPicture = z.strictObject({
  url: z.string().min(1),
  name: z.string().min(1),
  contentType: z.string().min(1),
  size: z.number().int().nonnegative(),
});

export const UserImportItem = z.strictObject({
  name,
  displayName: z.string().min(1).max(LIMITS.displayNameLength),
  isGuest: z.boolean(),
  properties,
  displayPicture: DisplayPicture.optional(),
  idempotencyKey: idempotencyKey.optional(),
});
export type UserImportItem = z.infer<typeof UserImportItem>;

export const ChannelImportItem = z
  .strictObject({
    type: z.enum(['DIRECT', 'PUBLIC', 'PRIVATE']),
    members: z.array(name),
    name: name.optional(),
    displayName: z.string().min(1).max(LIMITS.displayNameLength).optional(),
    creator: name.optional(),
    properties: properties.optional(),
    idempotencyKey: idempotencyKey.optional(),
  })
  .superRefine((item, ctx) => {
    if (new Set(item.members).size !== item.members.length)
      ctx.addIssue({ code: 'custom', path: ['members'], message: 'members must be unique usernames' });
    if (item.type === 'DIRECT') {
      if (item.members.length < LIMITS.directMembersMin || item.members.length > LIMITS.directMembersMax)
        ctx.addIssue({
          code: 'custom',
          path: ['members'],
          message: `a DIRECT channel has ${LIMITS.directMembersMin} to ${LIMITS.directMembersMax} members, got ${item.members.length}`,
        });
      for (const field of ['name', 'displayName'] as const)
        if (item[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: `${field} is only for PUBLIC and PRIVATE channels` });
    }
  });
export type ChannelImportItem = z.infer<typeof ChannelImportItem>;

export const MemberImportItem = z.strictObject({
  username: name,
  idempotencyKey: idempotencyKey.optional(),
});
export type MemberImportItem = z.infer<typeof MemberImportItem>;

export const MessageImportItem = z
  .strictObject({
    type: z.enum(['TEXT', 'SYSTEM_TEXT']),
    channelId: positiveInt64,
    body: z.string().min(1).max(LIMITS.bodyLength),
    user: name.optional(),
    groupTag: z.string().min(1).optional(),
    properties: properties.optional(),
    idempotencyKey: idempotencyKey.optional(),
  })
  .superRefine((item, ctx) => {
    if (item.type === 'TEXT' && item.user === undefined)
      ctx.addIssue({ code: 'custom', path: ['user'], message: 'a TEXT message needs its sender (user)' });
    if (item.type === 'SYSTEM_TEXT' && item.user !== undefined)
      ctx.addIssue({ code: 'custom', path: ['user'], message: 'a SYSTEM_TEXT message is sent by the application and carries no user' });
  });
export type MessageImportItem = z.infer<typeof MessageImportItem>;

export const IMPORT_KINDS = ['users', 'channels', 'members', 'messages'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const IMPORT_ITEM_SCHEMAS = {
  users: UserImportItem,
  channels: ChannelImportItem,
  members: MemberImportItem,
  messages: MessageImportItem,
} as const;

export const IMPORT_JOB_TYPE: Record<ImportKind, string> = {
  users: 'USER_IMPORT',
  channels: 'CHANNEL_IMPORT',
  members: 'CHANNEL_MEMBERS_IMPORT',
  messages: 'MESSAGE_IMPORT',
};

/** Scopes per import (decisions.md "Authentication"). */
export const IMPORT_SCOPE: Record<ImportKind, string> = {
  users: 'create:user',
  channels: 'create:channel',
  members: 'create:channel_membership',
  messages: 'create:message',
};
