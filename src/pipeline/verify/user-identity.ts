import type { PipelineConfig } from '../../config/index.js';
import { holderOf, namesHeldByStrangers } from '../import/name-holders.js';
import type { PlatformUser } from './compare-records.js';
import type { ExpectedSource } from './expected-source.js';
import type { Difference } from './types.js';

/**
 * Messages and memberships are compared by username, so a record naming a user of the users stage whose
 * name the platform holds for someone else (another pipeline's user, one made by hand, this pipeline's of
 * another key) would look right while it belongs to that other user. The import rejects such records
 * (stage-checks.ts, by the same rule: name-holders.ts); this finds any the platform holds anyway, one
 * difference per name, on the users stage.
 */
export function usersNamedForOthers(
  config: PipelineConfig,
  sourceNames: ReadonlyMap<string, string>,
  platform: readonly PlatformUser[],
  expected: Pick<ExpectedSource, 'authors' | 'members'>,
): Difference[] {
  const byName = new Map(platform.map((u) => [u.name, u]));
  const holder = (name: string) => {
    const user = byName.get(name);
    return user === undefined ? undefined : holderOf(user.properties, config.id);
  };
  const strangers = namesHeldByStrangers(sourceNames, holder, config.matchedUsers?.byKey);
  if (strangers.size === 0) return [];
  const keyOfName = new Map([...sourceNames].map(([key, name]) => [name, key]));
  const differences: Difference[] = [];
  for (const name of strangers) {
    const what = [expected.authors.has(name) ? 'messages' : '', [...expected.members.values()].some((m) => m.has(name)) ? 'memberships' : ''].filter(Boolean);
    if (what.length === 0) continue;
    const user = byName.get(name)!;
    const h = holder(name)!;
    const whose = h.ours ? `is pipeline ${config.id}'s user of source key ${h.key}` : `was not created by pipeline ${config.id}`;
    differences.push({
      kind: 'changed', stage: 'users', sourceKey: keyOfName.get(name)!, platformId: user.id, fields: ['identity'],
      message: `user "${name}": the platform's "${name}" ${whose}, so the ${what.join(' and ')} the source gives "${name}" belong to that other user there`,
    });
  }
  return differences;
}
