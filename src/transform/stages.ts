import type { ValueType } from './mapping-spec.js';
import type { StageKind } from './types.js';

/** The order stages run in: each starts when the ones before it have FINISHED. */
export const STAGE_ORDER: readonly StageKind[] = ['users', 'channels', 'members', 'messages'];

/**
 * What each stage needs finished first. Members and messages name channels by source key, which become
 * numeric ids only after the channels stage finished (import jobs return no ids); messages also wait for
 * members, so a sender is a member of the channel before the platform sees the message.
 */
export const STAGE_NEEDS: Readonly<Record<StageKind, readonly StageKind[]>> = {
  users: [],
  channels: ['users'],
  members: ['users', 'channels'],
  messages: ['users', 'channels', 'members'],
};

/** Stages whose records name their channel (by the channel's source key) and need it resolved to an id. */
export const CHANNEL_REF_STAGES: readonly StageKind[] = ['members', 'messages'];

/**
 * The property under which every user and channel item carries its source key, so that after the channels
 * stage the pipeline can find each channel's id, and before a stage compare what the platform holds
 * (docs/identity.md). Always read together with PIPELINE_PROPERTY: source keys of two pipelines may be equal.
 */
export const CHANNEL_KEY_PROPERTY = 'chatportKey';

/** The property under which users and channels chatport creates carry the pipeline's `id`. */
export const PIPELINE_PROPERTY = 'chatportPipeline';

/** The stages whose items carry the identity properties. */
export const IDENTITY_STAGES: readonly StageKind[] = ['users', 'channels'];

export const IDENTITY_PROPERTIES: readonly string[] = [PIPELINE_PROPERTY, CHANNEL_KEY_PROPERTY];

/**
 * A user's or channel's properties with chatport's two identity properties set (they win over the mapping,
 * which the config check keeps from naming them). A fresh object: the mapping may share one between
 * records. Properties that are not an object are left as they are, for the validator to reject.
 */
export function withIdentityProperties(properties: unknown, pipelineId: string, sourceKey: string): unknown {
  const identity = { [PIPELINE_PROPERTY]: pipelineId, [CHANNEL_KEY_PROPERTY]: sourceKey };
  if (properties === undefined) return identity;
  if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) return { ...properties, ...identity };
  return properties;
}

/** Coercions applied when a mapping names no type, because the import schema allows only that type there. */
export const IMPLIED_TYPES: Readonly<Record<StageKind, Readonly<Record<string, ValueType>>>> = {
  users: { isGuest: 'boolean', 'displayPicture.size': 'integer' },
  channels: {},
  members: {},
  messages: {},
};

/** Item fields chatport fills itself; a mapping must not set them. */
export const DERIVED_FIELDS: Readonly<Record<StageKind, readonly string[]>> = {
  users: ['idempotencyKey'],
  channels: ['idempotencyKey'],
  members: ['idempotencyKey'],
  messages: ['idempotencyKey', 'channelId'],
};

/** Item fields that name users (a username, or a list of them): rewritten when matched users are renamed. */
export const USER_NAME_FIELDS: Readonly<Record<StageKind, readonly string[]>> = {
  users: [],
  channels: ['members', 'creator'],
  members: ['username'],
  messages: ['user'],
};

/** A message split at the body limit (`longBodies: split`): `{index, count}` of each part. */
export const PART_PROPERTY = 'chatportPart';
