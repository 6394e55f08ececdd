/**
 * The declared schemas of the analytics exports (decisions.md "Analytics exports").
 *
 * Output column names are snake_case: Athena, Glue, Hive and Redshift fold identifiers to lower case, so
 * `channelId` would land as `channelid`; `channel_id` reads the same everywhere. Each column names the
 * export's own column (`source`); matching ignores case, `_` and `-`, so a platform revision that moved
 * to snake_case (decisions.md "Wire") still matches.
 *
 * Types: ids are int64, per-message sizes int32, counts int64, flags boolean, times UTC timestamps (the
 * unit, milliseconds or microseconds, is chosen per run), everything else strings.
 */
import type { ExportKind } from '../../api/index.js';

export type DeclaredType = 'int64' | 'int32' | 'boolean' | 'string' | 'timestamp';

export interface DeclaredColumn {
  /** Name in the output files. */
  readonly name: string;
  /** Name of the column in the platform's export. */
  readonly source: string;
  readonly type: DeclaredType;
  /** Whether the value may be missing. Default true; a row missing a required value is rejected. */
  readonly nullable?: boolean;
  /** Values (nearly) all different from row to row: written without a Parquet dictionary (docs/parquet.md). */
  readonly distinct?: boolean;
}

export interface DatasetSchema {
  readonly dataset: ExportKind;
  readonly columns: readonly DeclaredColumn[];
  /**
   * The output timestamp column whose UTC day places a row in its partition (event data: only rows of the
   * run's window are written). Absent: the dataset is a snapshot, written whole, labelled with a date.
   */
  readonly dayColumn?: string;
}

export const EXPORT_DATASETS = ['messages', 'users'] as const satisfies readonly ExportKind[];
export type ExportDataset = (typeof EXPORT_DATASETS)[number];

export const MESSAGES_SCHEMA: DatasetSchema = {
  dataset: 'messages',
  // A message belongs to the day it was created; a later edit does not move it (docs/export.md).
  dayColumn: 'created_time',
  columns: [
    { name: 'id', source: 'id', type: 'int64', nullable: false, distinct: true },
    { name: 'type', source: 'type', type: 'string' },
    { name: 'channel_id', source: 'channelId', type: 'int64', nullable: false },
    { name: 'channel_name', source: 'channelName', type: 'string' },
    { name: 'user_id', source: 'userId', type: 'int64' },
    { name: 'username', source: 'username', type: 'string' },
    // Bodies are at most 40,000 characters (src/wire LIMITS), far inside int32.
    { name: 'body_length', source: 'bodyLength', type: 'int32' },
    { name: 'replies_count', source: 'repliesCount', type: 'int64' },
    { name: 'reactions_count', source: 'reactionsCount', type: 'int64' },
    { name: 'group_tag', source: 'groupTag', type: 'string' },
    { name: 'created_time', source: 'createdTime', type: 'timestamp', distinct: true },
    { name: 'last_edited_time', source: 'lastEditedTime', type: 'timestamp', distinct: true },
  ],
};

export const USERS_SCHEMA: DatasetSchema = {
  dataset: 'users',
  columns: [
    { name: 'id', source: 'id', type: 'int64', nullable: false, distinct: true },
    { name: 'name', source: 'name', type: 'string' },
    { name: 'display_name', source: 'displayName', type: 'string' },
    { name: 'type', source: 'type', type: 'string' },
    { name: 'is_guest', source: 'isGuest', type: 'boolean' },
    { name: 'created_time', source: 'createdTime', type: 'timestamp', distinct: true },
    { name: 'channels_count', source: 'channelsCount', type: 'int64' },
    { name: 'messages_count', source: 'messagesCount', type: 'int64' },
    { name: 'last_message_time', source: 'lastMessageTime', type: 'timestamp', distinct: true },
  ],
};

export const DATASET_SCHEMAS: Readonly<Record<ExportDataset, DatasetSchema>> = { messages: MESSAGES_SCHEMA, users: USERS_SCHEMA };

/** The key two column names are matched by: lower case, without `_`, `-`, spaces and dots. */
export function columnMatchKey(name: string): string {
  return name.toLowerCase().replace(/[\s._-]+/g, '');
}

/**
 * Output name of a column the schema does not know: snake_case, letters, digits and `_` only, so every
 * warehouse accepts it unquoted (`newField` → `new_field`, `Some Thing!` → `some_thing`).
 */
export function toOutputName(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/_+/g, '_');
  if (snake === '') return 'column';
  return /^[0-9]/.test(snake) ? `c_${snake}` : snake;
}
