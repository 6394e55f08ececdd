import { resolveChannelId } from './channel-ref.js';
import type { ChannelIdLookup } from './channel-ref.js';
import { compileMapping, MappingError } from './compile-mapping.js';
import { idempotencyKeysOf, isBlank, isKeyless, sourceKeyOf } from './idempotency.js';
import type { NestedMapping, SkipRule } from './mapping-spec.js';
import { compileSkipRules, describeSkipRule } from './skip-rules.js';
import { roundedIdReason } from './rounded-ids.js';
import { CHANNEL_KEY_PROPERTY, PART_PROPERTY, USER_NAME_FIELDS, CHANNEL_REF_STAGES, DERIVED_FIELDS, IDENTITY_PROPERTIES, IDENTITY_STAGES, IMPLIED_TYPES, withIdentityProperties } from './stages.js';
import { describeFound, reason } from './types.js';
import type { Accepted, Processed, Reason, RecordPosition, StageKind } from './types.js';
import { FAST_VALIDATORS, ITEM_FIELDS, PICTURE_FIELDS } from './validate-fast.js';
import { isConstRule, isFieldRule, isTemplateRule } from './mapping-spec.js';
import { closest } from '../shared/closest-name.js';
import type { Int64 } from '../shared/int64.js';
import type { UserNameLookup } from './mapping-rules.js';
import { splitBody } from './split-body.js';
import { LIMITS } from '../wire/imports.js';

/** Everything the pipeline file says about how one stage's records become items. */
export interface StageProcessorSpec {
  /** The pipeline's id (its identity on the platform): part of every idempotency key and identity property. */
  pipelineId: string;
  stage: StageKind;
  /** The source field that identifies a record, or several (a composite key). */
  key: string | string[];
  /** Members and messages: the source field holding the source key of the record's channel. */
  channel?: string;
  /** Messages: the source field holding the source key of the message the record replies to. */
  thread?: string;
  /**
   * Messages: mark every message with its key (`properties.chatportKey`) even without `thread`, so that a
   * later run finds it on the platform and can compare it (`mode: upsert`, docs/identity.md).
   */
  markKeys?: boolean;
  /** Messages: split a body over the platform's limit into parts instead of rejecting it. */
  longBodies?: 'reject' | 'split';
  mapping: NestedMapping;
  /** Records matching any rule are skipped (counted, never sent). Default none. */
  skip?: SkipRule[];
  /** Source user name → platform name for users matched to other names (`onExisting: match`, by a property). */
  renamedUsers?: ReadonlyMap<string, string>;
}

export interface StageProcessorDeps {
  /**
   * Members and messages: channel source key → platform channel id, known once the channels stage has
   * finished. For an offline check (`chatport validate`) pass a lookup that answers a placeholder id (any
   * positive integer) for the keys the channels stage would produce.
   */
  channelIds?: ChannelIdLookup;
  /**
   * `ref: user` entries: a users-stage source key → the user's platform name, known once the users stage
   * has been read (run-import builds it; validate uses the users stage's own output).
   */
  userNames?: UserNameLookup;
}

/** What the formats produce for one record (structurally the same as src/formats' SourceItem). */
export type SourceInput =
  | { record: Record<string, unknown>; position: RecordPosition; emptyRow?: true }
  | { unparseable: { message: string; expected: string; raw: unknown; field?: string; foundText?: string }; position: RecordPosition };

export type StageProcessor = (input: SourceInput) => Processed;

/** Why a CSV row of delimiters only is skipped: it holds nothing to import, and is no mistake to reject. */
const EMPTY_ROW = 'an empty row: every field is empty (a spreadsheet writes these for formatted rows with nothing in them)';

/**
 * A mapping key the import item does not have (`displayNme`, `propertes`) is a mistake in the pipeline file:
 * caught when it loads, not as a reject of every record.
 */
function checkItemFields(stage: StageKind, mapping: NestedMapping): void {
  const unknownIn = (entries: NestedMapping, allowed: ReadonlySet<string>, prefix: string): void => {
    const mappable = [...allowed].filter((field) => !DERIVED_FIELDS[stage].includes(field));
    for (const key of Object.keys(entries)) {
      if (allowed.has(key)) continue;
      const guess = closest(key, mappable);
      throw new MappingError(
        `mapping.${prefix}${key}: a ${stage} import item has no field ${JSON.stringify(key)}${guess === undefined ? '' : `; did you mean ${JSON.stringify(guess)}?`} (a mapping may set: ${mappable.join(', ')}; put source facts into properties)`,
        `mapping.${prefix}${key}`,
      );
    }
  };
  unknownIn(mapping, ITEM_FIELDS[stage], '');
  const picture = mapping.displayPicture;
  if (stage === 'users' && typeof picture === 'object' && picture !== null && !isFieldRule(picture) && !isTemplateRule(picture) && !isConstRule(picture))
    unknownIn(picture as NestedMapping, PICTURE_FIELDS, 'displayPicture.');
}

/**
 * Compiles a stage once (mapping, skip rules, key) and returns the function that turns each source
 * record into an Accepted item (with its idempotency key and, for members and messages, its channel id),
 * a Rejected record with every reason, or a Skipped one.
 *
 * Throws MappingError (code CONFIG_INVALID) with `details.path` relative to the stage (`mapping.body`,
 * `skip.1.matches`, `channel`) when the spec cannot work; src/config calls this to check pipeline files.
 */
export function createStageProcessor(spec: StageProcessorSpec, deps: StageProcessorDeps = {}): StageProcessor {
  const { stage, pipelineId } = spec;
  for (const field of DERIVED_FIELDS[stage])
    if (Object.hasOwn(spec.mapping, field))
      throw new MappingError(`mapping.${field}: chatport sets ${field} itself${field === 'channelId' ? ' from the stage\'s "channel" field' : ''}; remove it from the mapping`, `mapping.${field}`);
  checkItemFields(stage, spec.mapping);
  const mappedProperties = spec.mapping.properties;
  if (IDENTITY_STAGES.includes(stage) && typeof mappedProperties === 'object' && mappedProperties !== null)
    for (const name of IDENTITY_PROPERTIES)
      if (Object.hasOwn(mappedProperties, name))
        throw new MappingError(`mapping.properties.${name}: chatport sets ${name} itself (docs/identity.md); remove it from the mapping`, `mapping.properties.${name}`);
  const needsChannel = CHANNEL_REF_STAGES.includes(stage);
  if (needsChannel && spec.channel === undefined) throw new MappingError(`channel: the ${stage} stage needs "channel", the source field naming the record's channel by its key`, 'channel');
  if (!needsChannel && spec.channel !== undefined) throw new MappingError(`channel: only members and messages name a channel`, 'channel');
  if (spec.thread !== undefined && stage !== 'messages') throw new MappingError(`thread: only messages reply to a message`, 'thread');
  const threadField = spec.thread;
  const marksKeys = threadField !== undefined || (stage === 'messages' && spec.markKeys === true);
  const splitLong = stage === 'messages' && spec.longBodies === 'split';
  const lookup = deps.channelIds;
  if (needsChannel && lookup === undefined) throw new TypeError(`the ${stage} stage needs deps.channelIds`);

  let mapping;
  try {
    mapping = compileMapping(spec.mapping, { impliedTypes: IMPLIED_TYPES[stage], ...(deps.userNames ? { userNames: deps.userNames } : {}) });
  } catch (error) {
    if (error instanceof MappingError) throw new MappingError(stagePathMessage(error), `mapping.${String(error.details.path)}`);
    throw error;
  }
  if (mapping.usesUserRefs && deps.userNames === undefined) throw new TypeError(`the ${stage} stage's mapping has "ref: user" entries and needs deps.userNames`);
  const skip = spec.skip ?? [];
  const skipTest = compileSkipRules(skip);
  const skipWords = skip.map(describeSkipRule);
  const keyFields = typeof spec.key === 'string' ? [spec.key] : spec.key;
  const keyName = keyFields.join(', ');
  const validate = FAST_VALIDATORS[stage];
  const channelField = spec.channel ?? '';
  const keyFor = idempotencyKeysOf(pipelineId, stage);
  const renamed = spec.renamedUsers !== undefined && spec.renamedUsers.size > 0 ? spec.renamedUsers : undefined;
  const userFields = USER_NAME_FIELDS[stage];

  return (input) => {
    const { position } = input;
    if ('unparseable' in input) {
      const u = input.unparseable;
      return {
        kind: 'rejected',
        position,
        reasons: [{ field: '', expected: u.expected, found: describeFound(u.foundText ?? u.raw), message: u.message, ...(u.field === undefined ? {} : { sourceField: u.field }) }],
        raw: u.raw,
      };
    }
    const record = input.record;
    if (input.emptyRow) return { kind: 'skipped', position, rule: -1, because: EMPTY_ROW, raw: record };
    const rule = skipTest(record);
    if (rule !== -1) return { kind: 'skipped', position, rule, because: skipWords[rule]!, raw: record };

    const reasons: Reason[] = [];
    const sourceKey = sourceKeyOf(keyFields.length === 1 ? [record[keyFields[0]!]] : keyFields.map((f) => record[f]));
    if (sourceKey === undefined)
      reasons.push(keylessReason(record, keyFields, 'idempotencyKey', 'the source key') ?? missingKeyReason(record, keyFields, keyName));
    else {
      const rounded = roundedIdReason(record, keyFields, 'idempotencyKey');
      if (rounded) reasons.push(rounded);
    }
    const item = mapping.map(record, reasons, sourceKey);

    if (IDENTITY_STAGES.includes(stage)) {
      if (sourceKey !== undefined) item.properties = withIdentityProperties(item.properties, pipelineId, sourceKey);
      else if (item.properties === undefined) item.properties = {};
    }
    let channelKey: string | undefined;
    let channelId: Int64 | undefined;
    if (needsChannel) {
      channelKey = sourceKeyOf([record[channelField]]);
      const keyless = keylessReason(record, [channelField], 'channelId', 'the key of a channel') ?? roundedIdReason(record, [channelField], 'channelId');
      const resolved = keyless ? { ok: false as const, reason: keyless } : resolveChannelId(channelKey, lookup!, channelField);
      if (resolved.ok) {
        channelId = resolved.channelId;
        if (stage === 'messages') item.channelId = channelId;
      } else reasons.push(resolved.reason);
    }
    if (renamed !== undefined) renameUsers(item, userFields, renamed);
    // A stage with threads marks every message with its key: replies find their root by it, and a reply's
    // resend looks for it first (docs/threads.md); an upsert stage finds its held messages by it.
    if (marksKeys && sourceKey !== undefined) item.properties = { ...(item.properties as Record<string, unknown> | undefined), [CHANNEL_KEY_PROPERTY]: sourceKey };
    if (sourceKey !== undefined) item.idempotencyKey = keyFor(sourceKey);
    const parentRef = threadField === undefined ? undefined : sourceKeyOf([record[threadField]]);
    const keylessParent = threadField === undefined ? undefined : (keylessReason(record, [threadField], 'thread', 'the key of the message it replies to') ?? roundedIdReason(record, [threadField], 'thread'));
    if (keylessParent) reasons.push(keylessParent);
    if (splitLong && sourceKey !== undefined && reasons.length === 0 && typeof item.body === 'string' && item.body.length > LIMITS.bodyLength)
      return acceptParts(splitIntoParts(item, sourceKey, keyFor, marksKeys), position, validate, { channelKey, channelId, parentRef }, record);

    const problems = validate(item);
    if (problems !== undefined) {
      // A value the mapping could not coerce was left out; the validator then finds it missing. Say it once.
      for (const p of problems) if (!reasons.some((r) => r.field === p.field || r.field.startsWith(`${p.field}.`))) reasons.push(p);
    }
    if (reasons.length > 0) return { kind: 'rejected', position, reasons, raw: record };
    const accepted: Processed = { kind: 'accepted', item, position, sourceKey: sourceKey!, raw: record };
    if (channelKey !== undefined) accepted.channelKey = channelKey;
    if (channelId !== undefined) accepted.channelId = channelId;
    if (parentRef !== undefined) accepted.parentRef = parentRef;
    return accepted;
  };
}


/** The reason for a key field holding no key (an object, a list, true or false), naming the first such field. */
function keylessReason(record: Record<string, unknown>, fields: readonly string[], itemField: string, what: string): Reason | undefined {
  const field = fields.find((f) => isKeyless(record[f]));
  return field === undefined ? undefined : reason(itemField, `text or a number (${what})`, record[field], field);
}

/** The reason for a record without a key, showing a key field of spaces only as it is (not as missing). */
function missingKeyReason(record: Record<string, unknown>, fields: readonly string[], keyName: string): Reason {
  const blank = fields.find((f) => typeof record[f] === 'string' && record[f] !== '' && isBlank(record[f]));
  return reason('idempotencyKey', `a source key (${fields.length === 1 ? 'field' : 'fields'} ${keyName})`, blank === undefined ? undefined : record[blank], blank ?? keyName);
}

/** A mapping's message led by its path in the mapping (`properties.x: …`), led by its path in the stage instead. */
function stagePathMessage(error: MappingError): string {
  const first = String(error.details.path).split('.')[0]!;
  return error.message.startsWith(`${first}.`) || error.message.startsWith(`${first}:`) ? `mapping.${error.message}` : error.message;
}

/** Gives the records that name a matched user that user's platform name. */
function renameUsers(item: Record<string, unknown>, fields: readonly string[], renamed: ReadonlyMap<string, string>): void {
  for (const field of fields) {
    const value = item[field];
    if (typeof value === 'string') item[field] = renamed.get(value) ?? value;
    else if (Array.isArray(value)) item[field] = value.map((v) => (typeof v === 'string' ? (renamed.get(v) ?? v) : v));
  }
}

/** A message over the body limit as consecutive parts: the first keeps the record's key, the rest get `key#n`. */
function splitIntoParts(item: Record<string, unknown>, sourceKey: string, keyFor: (k: string) => string, marked: boolean): Array<{ item: Record<string, unknown>; sourceKey: string }> {
  const bodies = splitBody(item.body as string, LIMITS.bodyLength);
  return bodies.map((body, i) => {
    const key = i === 0 ? sourceKey : `${sourceKey}#${i + 1}`;
    const properties: Record<string, unknown> = { ...(item.properties as Record<string, unknown> | undefined), [PART_PROPERTY]: { index: i + 1, count: bodies.length } };
    if (marked) properties[CHANNEL_KEY_PROPERTY] = key;
    return { item: { ...item, body, properties, idempotencyKey: keyFor(key) }, sourceKey: key };
  });
}

/** The parts, each validated: any invalid part rejects the whole record (no part is sent without the others). */
function acceptParts(
  parts: Array<{ item: Record<string, unknown>; sourceKey: string }>,
  position: RecordPosition,
  validate: (item: Record<string, unknown>) => Reason[] | undefined,
  refs: { channelKey: string | undefined; channelId: Int64 | undefined; parentRef: string | undefined },
  record: Record<string, unknown>,
): Processed {
  const reasons = parts.flatMap((p) => validate(p.item) ?? []);
  if (reasons.length > 0) return { kind: 'rejected', position, reasons, raw: record };
  const defined = Object.fromEntries(Object.entries(refs).filter(([, v]) => v !== undefined)) as Partial<Accepted>;
  const accepted = parts.map((p): Accepted => ({ kind: 'accepted', item: p.item, position, sourceKey: p.sourceKey, raw: record, ...defined }));
  const [first, ...rest] = accepted;
  first!.parts = rest;
  return first!;
}
