import { readFile } from 'node:fs/promises';
import { parseJsonExact } from '../../shared/lossless-json.js';

/**
 * Channel key → platform id as chatport's runs resolved them (each run's `channel-ids.json`, written after
 * its channels stage), for the keys asked: the newest file holding a key wins. A run that failed before its
 * channels stage (a key held twice stops the import: IDENTITY_AMBIGUOUS) has no file; an older run's says.
 */
export async function readRunChannelIds(files: readonly string[], keys: ReadonlySet<string>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const file of [...files].reverse()) {
    if (ids.size === keys.size) break;
    const mapped = await readFile(file, 'utf8').then((t) => parseJsonExact(t, 'bigint') as Record<string, unknown>, () => undefined);
    if (mapped === undefined) continue;
    for (const key of keys) if (!ids.has(key) && mapped[key] !== undefined) ids.set(key, String(mapped[key]));
  }
  return ids;
}
