import { mappedByChatport, type PipelineConfig, type StageConfig } from '../../config/index.js';
import { CHANNEL_KEY_PROPERTY, compileMapping, IMPLIED_TYPES, PIPELINE_PROPERTY, type UserNameLookup } from '../../transform/index.js';

/**
 * `ref: user` entries name users by their key in the users stage; this is the table that turns such a key
 * into the user's platform name. It is read from the users stage's own output (users are few next to
 * messages), so it is the same in an import, a resumed run, a validation and a verification, and names made
 * unique by `unique: suffix` are the names the users stage sent; with a platform, a key the platform holds
 * for this pipeline takes the name it holds there (`platformUserNames`).
 */
export function stageUsesUserRefs(stage: StageConfig): boolean {
  if (mappedByChatport(stage)) return false;
  return compileMapping(stage.mapping, { impliedTypes: IMPLIED_TYPES[stage.stage], userNames: () => undefined }).usesUserRefs;
}

type ReadUsers = (stage: StageConfig) => AsyncIterable<{ kind: string; sourceKey?: string; item?: Record<string, unknown> }>;

const cache = new WeakMap<PipelineConfig, Promise<ReadonlyMap<string, string>>>();

/**
 * A run's own copy of the pipeline config: what it learns (the source's user names, cached by config here;
 * `platformUserNames`; `matchedUsers`) holds for that run's input and platform only, and a caller that runs
 * the same config object again the next night (its files since changed) must not get last night's.
 */
export function forOneRun(config: PipelineConfig): PipelineConfig {
  // A run's own copy is not copied again: the import's verification shares what the run read (its Slack
  // pass 1, the source's user names) instead of reading the input once more.
  if (runCopies.has(config)) return config;
  const copy = { ...config };
  runCopies.add(copy);
  return copy;
}

const runCopies = new WeakSet<PipelineConfig>();

/** This pipeline's users among the platform's: source key (`chatportKey`) → name. */
export function pipelineUserNamesOf(users: ReadonlyArray<{ name: string; properties?: Record<string, unknown> | undefined }>, pipelineId: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const user of users) {
    const key = user.properties?.[CHANNEL_KEY_PROPERTY];
    if (user.properties?.[PIPELINE_PROPERTY] === pipelineId && typeof key === 'string') names.set(key, user.name);
  }
  return names;
}

/** The users stage's source key → name, as its source gives them: read once per pipeline config. */
export function sourceUserNamesOf(config: PipelineConfig, readUsers: ReadUsers): Promise<ReadonlyMap<string, string>> {
  let pending = cache.get(config);
  if (pending === undefined) {
    pending = readSourceUserNames(config, readUsers);
    cache.set(config, pending);
    // A failed read (a missing file) must not stay cached for a later attempt.
    pending.catch(() => cache.delete(config));
  }
  return pending;
}

/**
 * The `ref: user` table: matched users (onExisting: match) are named by the platform user they matched,
 * users the platform holds for this pipeline by the name they hold there (`platformUserNames`, set after
 * the users stage), the others as the source names them.
 */
export async function userNamesOf(config: PipelineConfig, readUsers: ReadUsers): Promise<UserNameLookup> {
  const names = await sourceUserNamesOf(config, readUsers);
  const matched = config.matchedUsers?.policy === 'match' ? config.matchedUsers.byKey : undefined;
  const held = config.platformUserNames;
  if (!matched && !held) return (key) => names.get(key);
  return (key) => matched?.get(key)?.name ?? held?.get(key) ?? names.get(key);
}

async function readSourceUserNames(config: PipelineConfig, readUsers: ReadUsers): Promise<ReadonlyMap<string, string>> {
  const names = new Map<string, string>();
  const users = config.stages.find((s) => s.stage === 'users');
  if (users !== undefined)
    for await (const p of readUsers(users)) if (p.kind === 'accepted' && typeof p.item?.name === 'string') names.set(p.sourceKey!, p.item.name);
  return names;
}
