import { readFile } from 'node:fs/promises';
import { parseJsonExact } from '../../shared/lossless-json.js';
import type { JournalEvent, StageName } from './events.js';
import { readJournalEvents } from './journal.js';
import type { RunPaths } from './run-paths.js';

/** One chunk of a stage as the state folder's journal tells it: done or not, and the items the platform refused. */
interface ChunkFate {
  runId: string;
  seq: number;
  done: boolean;
  refused: Set<number>;
}

/**
 * The items of a stage that runs of this state folder other than `exceptRunId` imported: their chunk done
 * (every job FINISHED) and the item not refused, read from the run folders' chunk files, in journal order
 * (the earliest run first). The platform took each one's idempotency key, and a key taken stays taken:
 * deleted on the platform since, such a record is skipped by every later import of that key. A run folder
 * pruned since (`chatport runs prune`) lists nothing. Only the chunks' fates are held, one small entry a
 * chunk; each file is read and let go in turn.
 */
export async function forEachEarlierImport(
  paths: RunPaths,
  stage: StageName,
  exceptRunId: string | undefined,
  visit: (item: Record<string, unknown>, runId: string) => void,
): Promise<void> {
  const chunks = new Map<string, ChunkFate>();
  let runId: string | undefined;
  await readJournalEvents<JournalEvent>(paths.journal, (e) => {
    if (e.t === 'run-started') runId = e.runId;
    if (runId === undefined || runId === exceptRunId || !('stage' in e) || e.stage !== stage || !('seq' in e)) return;
    const id = `${runId}\u0000${e.seq}`;
    // A resumed attempt writes an unfinished chunk again: what the journal said of it stands.
    if (e.t === 'chunk-written' && !chunks.has(id)) chunks.set(id, { runId, seq: e.seq, done: false, refused: new Set() });
    const fate = chunks.get(id);
    if (fate === undefined) return;
    if (e.t === 'chunk-done') fate.done = true;
    else if (e.t === 'item-refused') fate.refused.add(e.index);
    else if (e.t === 'refusal-withdrawn') fate.refused.delete(e.index);
  });
  for (const fate of chunks.values()) {
    if (!fate.done) continue;
    const items = await readChunk(paths.chunkFile(fate.runId, stage, fate.seq));
    items.forEach((item, index) => {
      if (!fate.refused.has(index) && item !== null && typeof item === 'object') visit(item as Record<string, unknown>, fate.runId);
    });
  }
}

/**
 * The records of a stage that an earlier run of the state folder imported and that are `gone` from the
 * platform now (deleted there since): idempotency key → the run that imported it (the earliest). The
 * platform keeps a used key (decisions.md): sent again, such a record is skipped and nothing is created,
 * so a run must not count it imported. Only these are kept in memory.
 */
export async function deletedSinceImported(paths: RunPaths, runId: string, stage: StageName, gone: (item: Record<string, unknown>) => boolean): Promise<Map<string, string>> {
  const deleted = new Map<string, string>();
  await forEachEarlierImport(paths, stage, runId, (item, run) => {
    const idempotencyKey = item.idempotencyKey;
    if (typeof idempotencyKey === 'string' && !deleted.has(idempotencyKey) && gone(item)) deleted.set(idempotencyKey, run);
  });
  return deleted;
}

async function readChunk(file: string): Promise<unknown[]> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const items: unknown = parseJsonExact(text, 'bigint');
  return Array.isArray(items) ? items : [];
}
