import { appendFile, readFile } from 'node:fs/promises';
import { stringifyJson } from '../../shared/lossless-json.js';

/**
 * Look-up keys journaled one a line in the run folder (`held/<stage>.patched.ndjson`,
 * `held/<stage>.deleted.ndjson`), each written before the action it names is sent: a resumed stage, which
 * compares with the same snapshot, learns what an earlier attempt may have changed on the platform since.
 */

/** The keys journaled so far (none when the file is absent). A line a crash cut short names no action that was sent: skipped. */
export async function readJournaledKeys(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .map(parsedKey)
    .filter((k): k is string => k !== undefined);
}

export async function journalKey(file: string, key: string): Promise<void> {
  await appendFile(file, `${stringifyJson(key)}\n`);
}

function parsedKey(line: string): string | undefined {
  try {
    const key: unknown = JSON.parse(line);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
