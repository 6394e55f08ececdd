import { FAST_VALIDATORS, resolveChannelId, type ChannelIdLookup, type Processed, type Reason, type RecordPosition, type StageKind } from '../../transform/index.js';
import { describeFound } from '../../transform/types.js';
import type { DirectoryRejection, Outcome } from '../../transform/slack/index.js';
import type { Int64 } from '../../shared/int64.js';

/**
 * Turns the Slack mapping's results into the pipeline's Processed records: every item through the fast
 * validator (an invalid one is a Rejected, never an upload), channel keys resolved to platform ids.
 */

/**
 * Positions name the export and the entry inside it: `/data/export.zip/general/2024-01-02.json`; an export
 * that is the file itself (a bare Mattermost JSONL) is named once.
 */
export function positionIn(origin: string, position: { file: string; index: number; line?: number }): RecordPosition {
  const file = origin === position.file || origin.endsWith(`/${position.file}`) ? origin : `${origin}/${position.file}`;
  return { file, index: position.index, ...(position.line === undefined ? {} : { line: position.line }) };
}

/** A mapped item, validated; `channel` for members and messages: the channel's source key and the lookup. */
export function acceptItem(
  stage: StageKind,
  item: Record<string, unknown>,
  position: RecordPosition,
  sourceKey: string,
  channel?: { key: string; lookup: ChannelIdLookup },
): Processed {
  const reasons: Reason[] = [];
  let channelId: Int64 | undefined;
  if (channel !== undefined) {
    const resolved = resolveChannelId(channel.key, channel.lookup, 'channel');
    if (resolved.ok) {
      channelId = resolved.channelId;
      if (stage === 'messages') item.channelId = channelId;
    } else reasons.push({ ...resolved.reason, message: `channel ${channel.key} has no platform id: the channels stage did not import it (${resolved.reason.message})` });
  }
  for (const problem of FAST_VALIDATORS[stage](item) ?? []) if (!reasons.some((r) => r.field === problem.field)) reasons.push(problem);
  if (reasons.length > 0) return { kind: 'rejected', position, reasons, raw: item, ...(channel !== undefined ? { channelKey: channel.key } : {}) };
  const accepted: Processed = { kind: 'accepted', item, position, sourceKey };
  if (channel !== undefined) accepted.channelKey = channel.key;
  if (channelId !== undefined) accepted.channelId = channelId;
  return accepted;
}

/** A users.json or conversation-list record pass 1 could not use (wrong field type, repeated id). */
export function rejectedRecord(origin: string, rejection: DirectoryRejection): Processed {
  const { field, reason } = rejection.problem;
  return {
    kind: 'rejected',
    position: positionIn(origin, rejection.position),
    reasons: [{ field, expected: 'a Slack record as the export format has it', found: describeFound(valueAt(rejection.raw, field)), message: `${field}: ${reason}` }],
    raw: rejection.raw,
  };
}

/** A skipped or rejected outcome of the message mapping (items are handled by the caller). */
export function processedOfOutcome(origin: string, outcome: Exclude<Outcome<unknown>, { outcome: 'items' }>): Processed {
  const position = positionIn(origin, outcome.position);
  // The Slack mapping's skips are built-in rules, not the pipeline file's `skip` list: rule -1.
  if (outcome.outcome === 'skipped') return { kind: 'skipped', position, rule: -1, because: outcome.reason, ...(outcome.raw === undefined ? {} : { raw: outcome.raw }) };
  return {
    kind: 'rejected',
    position,
    reasons: [{ field: outcome.field, expected: 'a Slack message as the export format has it', found: describeFound(valueAt(outcome.raw, outcome.field)), message: `${outcome.field}: ${outcome.reason}` }],
    raw: outcome.raw,
  };
}

/** A day file that is not a JSON array of messages: one rejected record for the whole file. */
export function rejectedDayFile(origin: string, file: string, problem: string): Processed {
  return {
    kind: 'rejected',
    position: positionIn(origin, { file, index: 0 }),
    reasons: [{ field: '', expected: 'a JSON array of messages', found: problem, message: `${file}: ${problem}; its messages cannot be read` }],
    raw: null,
  };
}

function valueAt(raw: unknown, path: string): unknown {
  let v = raw;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}
