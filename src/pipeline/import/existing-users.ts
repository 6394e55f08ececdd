import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatportClient } from '../../api/index.js';
import type { MatchedUsers, PipelineConfig, StageConfig } from '../../config/index.js';
import { ChatportError } from '../../shared/errors.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { CHANNEL_KEY_PROPERTY, conditionText, PIPELINE_PROPERTY, type Processed } from '../../transform/index.js';
import type { User } from '../../wire/resources.js';
import { writeFileAtomic } from '../state/atomic-file.js';

/**
 * `onExisting`: source users that the platform already has (made by single sign-on, by hand, by another
 * tool). Matched before the users stage sends anything, against every platform user that is not this
 * pipeline's own; the table is kept in the run folder so a resumed run, and verification, use the same one.
 */

export interface ExistingUsersInput {
  client: ChatportClient;
  config: PipelineConfig;
  users: StageConfig;
  runDir: string;
  readUsers: (stage: StageConfig) => AsyncIterable<Processed>;
  signal: AbortSignal;
}

const TABLE_FILE = 'existing-users.json';
const NAMED_IN_ERROR = 10;

interface Index {
  byName: Map<string, User>;
  /** `properties.<field>` value as text → the users holding it. */
  byProperty: Map<string, User[]>;
}

/** Loads the run's table (a resumed run), or matches the users stage's records against the platform. */
export async function resolveExistingUsers(input: ExistingUsersInput): Promise<MatchedUsers | undefined> {
  const onExisting = input.users.onExisting;
  if (onExisting === undefined) return undefined;
  const file = join(input.runDir, TABLE_FILE);
  const saved = await readFile(file, 'utf8').then((t) => JSON.parse(t) as SavedTable, () => undefined);
  if (saved) return fromSaved(saved);
  const table = await matchUsers(input, await indexPlatformUsers(input));
  if (onExisting.policy === 'fail' && table.byKey.size > 0) throw usersExist(table);
  await writeFileAtomic(file, stringifyJson(toSaved(table), 1));
  return table;
}

async function indexPlatformUsers(input: ExistingUsersInput): Promise<Index> {
  const field = propertyOf(input.users.onExisting!.by);
  const index: Index = { byName: new Map(), byProperty: new Map() };
  for await (const user of input.client.users.list({ pageSize: 100, signal: input.signal })) {
    // This pipeline's own users are kept too: one of another source key (a second workspace's user of the
    // same name) may be matched; the record's own user never is (matchUsers).
    index.byName.set(user.name, user);
    const value = field === undefined ? undefined : user.properties?.[field];
    if (value === undefined || value === null || value === '') continue;
    const text = conditionText(value);
    const holders = index.byProperty.get(text);
    if (holders) holders.push(user);
    else index.byProperty.set(text, [user]);
  }
  return index;
}

async function matchUsers(input: ExistingUsersInput, index: Index): Promise<MatchedUsers> {
  const { policy, by } = input.users.onExisting!;
  const field = propertyOf(by);
  const table: MatchedUsers = { policy, by, byKey: new Map(), renamed: new Map() };
  for await (const p of input.readUsers(input.users)) {
    if (p.kind !== 'accepted') continue;
    const item = p.item as { name: string; properties?: Record<string, unknown> };
    const found = field === undefined ? index.byName.get(item.name) : uniqueHolder(index, item.properties?.[field]);
    if (found === undefined || isOwnRecord(found, p.sourceKey, input.config.id)) continue;
    table.byKey.set(p.sourceKey, { name: found.name, id: String(found.id) });
    if (found.name !== item.name) table.renamed.set(item.name, found.name);
  }
  return table;
}

/**
 * The platform user is this record's own, imported by this pipeline under its source key (held-records.ts
 * compares it): never "existing". One of this pipeline's without a key (an older version) is taken for it.
 */
function isOwnRecord(user: User, sourceKey: string, pipelineId: string): boolean {
  if (user.properties?.[PIPELINE_PROPERTY] !== pipelineId) return false;
  const key = user.properties[CHANNEL_KEY_PROPERTY];
  return key === undefined || key === sourceKey;
}

/** A property value held by exactly one platform user; two or more is no match (never a guess). */
function uniqueHolder(index: Index, value: unknown): User | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const holders = index.byProperty.get(conditionText(value));
  return holders?.length === 1 ? holders[0] : undefined;
}

/** `by: properties.email` → `email`; `by: name` → undefined. */
export function propertyOf(by: string): string | undefined {
  return by === 'name' ? undefined : by.slice('properties.'.length);
}

function usersExist(table: MatchedUsers): ChatportError {
  const named = [...table.byKey.values()].slice(0, NAMED_IN_ERROR).map((u) => u.name);
  const more = table.byKey.size > named.length ? ` and ${table.byKey.size - named.length} more` : '';
  return new ChatportError(
    `${table.byKey.size} source users already exist on the platform (matched by ${table.by}): ${named.join(', ')}${more}. Nothing was sent. Set users.onExisting to match (use them) or skip (leave them out), or remove them from the source`,
    { code: 'USERS_EXIST', details: { count: table.byKey.size, names: named } },
  );
}

interface SavedTable {
  policy: MatchedUsers['policy'];
  by: string;
  byKey: Record<string, { name: string; id: string }>;
  renamed: Record<string, string>;
}

function toSaved(t: MatchedUsers): SavedTable {
  return { policy: t.policy, by: t.by, byKey: Object.fromEntries(t.byKey), renamed: Object.fromEntries(t.renamed) };
}

function fromSaved(s: SavedTable): MatchedUsers {
  return { policy: s.policy, by: s.by, byKey: new Map(Object.entries(s.byKey)), renamed: new Map(Object.entries(s.renamed)) };
}

/** The run's table, for `chatport verify` (undefined when the run had no onExisting). */
export async function readExistingUsers(runDir: string): Promise<MatchedUsers | undefined> {
  const saved = await readFile(join(runDir, TABLE_FILE), 'utf8').then((t) => JSON.parse(t) as SavedTable, () => undefined);
  return saved ? fromSaved(saved) : undefined;
}

/**
 * A users-stage record the platform already has: "matched" (onExisting: match) or "existing" (skip); both
 * are counted as skipped, never sent. Undefined for every other record and stage.
 */
export function existingOutcome(config: PipelineConfig, stage: StageConfig, sourceKey: string): 'matched' | 'existing' | undefined {
  const table = config.matchedUsers;
  if (table === undefined || stage.stage !== 'users' || !table.byKey.has(sourceKey)) return undefined;
  return table.policy === 'match' ? 'matched' : 'existing';
}
