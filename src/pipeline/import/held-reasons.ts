import type { Int64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import type { Accepted, ComparedStage, FieldDifference, Reason } from '../../transform/index.js';
import type { ForeignDirect, HeldElsewhere } from './held-copies.js';
import { deletedSinceImportReason } from '../verify/deleted-since-import.js';

/** Why a held record cannot be brought to its source's content: each reason names what to change instead. */

/** The resource whose merge patch updates a held record of the stage. */
export const RESOURCE_NAMES = { users: 'user', channels: 'channel', messages: 'message' } as const;

export function foreignDirectReason(foreign: ForeignDirect): Reason {
  if (foreign.key !== undefined)
    return {
      field: 'members',
      expected: 'members whose DIRECT channel is not this pipeline\'s channel of another source key',
      found: `DIRECT channel ${foreign.id} of source key ${foreign.key}`,
      message: `members: the platform keeps one DIRECT channel per member set, and channel ${foreign.id} for these members is this pipeline's channel of source key ${foreign.key}; this record's messages are not merged into it`,
    };
  return {
    field: 'members',
    expected: 'members whose DIRECT channel is not another pipeline\'s',
    found: `DIRECT channel ${foreign.id} of pipeline "${foreign.pipeline}"`,
    message: `members: the platform keeps one DIRECT channel per member set, and channel ${foreign.id} for these members belongs to pipeline "${foreign.pipeline}"; its messages are not merged into it (docs/identity.md)`,
  };
}

export function fixedFieldReason(stage: ComparedStage, id: Int64, { field, platform, source }: FieldDifference): Reason {
  const what = RESOURCE_NAMES[stage];
  return {
    field,
    expected: `the ${field} the platform's ${what} ${id} has (${stringifyJson(platform)}): an update cannot change it`,
    found: stringifyJson(source),
    message: `${field}: the platform holds ${what} ${id} with ${field} ${stringifyJson(platform)}, and no update changes a ${what}'s ${field}; keep it in the source, or give the record another source key (deleted on the platform, it keeps its idempotency key taken: imported again under it, nothing is created)`,
  };
}

export function movedMessageReason({ channelKey, channelId }: Accepted, { copy, channel }: HeldElsewhere): Reason {
  const held = channel.key === undefined ? `channel ${channel.id}` : `channel ${channel.id} (source key ${channel.key})`;
  const named = `channel ${String(channelId)}${channelKey === undefined ? '' : ` (source key ${channelKey})`}`;
  return {
    field: 'channel',
    expected: `the channel the platform's message ${copy.id} is in, ${held}: an update cannot move a message`,
    found: stringifyJson(channelKey ?? String(channelId)),
    message:
      `channel: the platform holds message ${copy.id} of this key in ${held}, and the source names ${named}; no update moves a message to another channel, ` +
      `and sent again it would be taken for a retry of its key and create nothing. Keep its channel in the source, or give the record a new key and ` +
      `delete message ${copy.id} on the platform (a deleted message's key stays used: the same key is not imported again)`,
  };
}

/** A merge patch the platform answered with a 4xx (a new name already taken, the record deleted meanwhile). */
export function refusedUpdateReason(stage: ComparedStage, id: Int64, patch: Record<string, unknown>, error: Error): Reason {
  const message = `the platform refused the update of ${RESOURCE_NAMES[stage]} ${id}: ${error.message}`;
  return { field: Object.keys(patch).join(', '), expected: 'an update the platform accepts', found: 'a refused merge patch', message };
}

/** Why a record imported by an earlier run, and deleted on the platform since, is skipped (docs/accounting.md). */
export function deletedSinceReason(importedBy: string, idempotencyKey: string): string {
  return `${deletedSinceImportReason(importedBy, idempotencyKey)} (give the record another source key to import it again, or a skip rule to accept the deletion)`;
}
