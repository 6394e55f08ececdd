import { readFirstLines } from '../../shared/read-first-lines.js';
import { parseJsonExact } from '../../shared/lossless-json.js';
import type { StageName } from '../state/events.js';
import type { RejectLine } from './rejects-writer.js';

/** The first `n` lines of each stage's rejects file that has any (big integers in records kept exact). */
export async function readFirstRejects(files: Partial<Record<StageName, string>>, n: number): Promise<Partial<Record<StageName, RejectLine[]>>> {
  const out: Partial<Record<StageName, RejectLine[]>> = {};
  if (n <= 0) return out;
  for (const [stage, file] of Object.entries(files) as Array<[StageName, string]>) {
    const lines = await readFirstLines(file, n);
    if (lines.length > 0) out[stage] = lines.map((line) => parseJsonExact(line, 'bigint') as RejectLine);
  }
  return out;
}
