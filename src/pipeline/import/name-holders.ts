import { CHANNEL_KEY_PROPERTY, PIPELINE_PROPERTY } from '../../transform/index.js';

/**
 * Whose record holds a name on the platform: this pipeline's (its `chatportPipeline` property) and under
 * which source key (`chatportKey`; absent on records of older versions). The import's checks
 * (stage-checks.ts) and verification (verify/user-identity.ts) judge names by the same rule.
 */
export interface Holder {
  ours: boolean;
  key: string | undefined;
}

export function holderOf(properties: Record<string, unknown> | undefined, pipelineId: string): Holder {
  const key = properties?.[CHANNEL_KEY_PROPERTY];
  return { ours: properties?.[PIPELINE_PROPERTY] === pipelineId, key: typeof key === 'string' ? key : undefined };
}

/**
 * The name's holder is not the record with this key: another pipeline's record, or this pipeline's under
 * another key (a second workspace's user of the same name). A holder of an older version, without a key,
 * is taken for the record itself.
 */
export function heldByAnother(holder: Holder | undefined, key: string | undefined): boolean {
  if (holder === undefined) return false;
  if (!holder.ours) return true;
  return holder.key !== undefined && key !== undefined && holder.key !== key;
}

/** This pipeline's records among the holders: source key → the name the platform holds for it. */
export function ourNamesByKey(holders: ReadonlyMap<string, Holder>): Map<string, string> {
  const names = new Map<string, string>();
  for (const [name, holder] of holders) if (holder.ours && holder.key !== undefined) names.set(holder.key, name);
  return names;
}

/**
 * The names of the users stage's source (source key → name) that the platform holds for another user, so
 * that a record naming one would belong to that user there. Not a stranger: the user `onExisting` matched
 * to the holder of its own name, and a holder the source still has under another name now (a renamed
 * user, `unique: suffix` numbering that moved: references by key name it as the platform does).
 */
export function namesHeldByStrangers(
  sourceNames: ReadonlyMap<string, string>,
  holderOfName: (name: string) => Holder | undefined,
  matched: ReadonlyMap<string, { name: string }> | undefined,
): Set<string> {
  const strangers = new Set<string>();
  for (const [key, name] of sourceNames) {
    if (matched?.get(key)?.name === name) continue;
    const holder = holderOfName(name);
    if (heldByAnother(holder, key) && !(holder!.ours && holder!.key !== undefined && sourceNames.has(holder!.key))) strangers.add(name);
  }
  return strangers;
}
