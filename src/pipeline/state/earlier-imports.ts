import { readFile } from 'node:fs/promises';
import { parseJsonExact } from '../../shared/lossless-json.js';
import type { JournalEvent, StageName } from './events.js';
import { hasImportedIndex, importedItemOf, readImportedIndex, writeImportedIndex, type ImportedItem } from './imported-index.js';
import { readJournalEvents } from './journal.js';
import type { RunPaths } from './run-paths.js';

/** One chunk of a stage as the state folder's journal tells it: done or not, and the items the platform refused. */
interface ChunkFate {
  seq: number;
  done: boolean;
  refused: Set<number>;
}

/** A run's chunks of each stage, by run in journal order (the earliest first); `ended`: the run's end is journaled. */
type RunChunks = Map<string, { stages: Map<StageName, ChunkFate[]>; ended: boolean }>;

/**
 * The chunks' fates of the runs and stages `wanted` takes, from the journal. Only the fates are held, one
 * small entry a chunk.
 */
async function readChunkFates(paths: RunPaths, wanted: (runId: string, stage: StageName) => boolean): Promise<RunChunks> {
  const runs: RunChunks = new Map();
  const byId = new Map<string, ChunkFate>();
  let runId: string | undefined;
  await readJournalEvents<JournalEvent>(paths.journal, (e) => {
    if (e.t === 'run-started') runId = e.runId;
    if (e.t === 'run-ended') {
      const run = runs.get(e.runId);
      if (run) run.ended = true;
    }
    if (runId === undefined || !('stage' in e) || !('seq' in e) || !wanted(runId, e.stage)) return;
    const id = `${runId}\u0000${e.stage}\u0000${e.seq}`;
    // A resumed attempt writes an unfinished chunk again: what the journal said of it stands.
    if (e.t === 'chunk-written' && !byId.has(id)) {
      const fate: ChunkFate = { seq: e.seq, done: false, refused: new Set() };
      byId.set(id, fate);
      const { stages } = runs.get(runId) ?? runs.set(runId, { stages: new Map(), ended: false }).get(runId)!;
      (stages.get(e.stage) ?? stages.set(e.stage, []).get(e.stage)!).push(fate);
    }
    const fate = byId.get(id);
    if (fate === undefined) return;
    if (e.t === 'chunk-done') fate.done = true;
    else if (e.t === 'item-refused') fate.refused.add(e.index);
    else if (e.t === 'refusal-withdrawn') fate.refused.delete(e.index);
  });
  return runs;
}

/**
 * The items of a stage that runs of this state folder other than `exceptRunId` imported: their chunk done
 * (every job FINISHED) and the item not refused, in journal order (the earliest run first). The platform
 * took each one's idempotency key, and a key taken stays taken: deleted on the platform since, such a record
 * is skipped by every later import of that key. A run's imported index (imported-index.ts, kept by `runs
 * prune`) is read when there is one, else its chunk files, each read and let go in turn; a run that ended
 * gets its index written then, so the next run reads that instead (every upsert run read every earlier
 * chunk file: BENCHMARKS.md).
 */
export async function forEachEarlierImport(
  paths: RunPaths,
  stage: StageName,
  exceptRunId: string | undefined,
  visit: (item: ImportedItem, runId: string) => void,
): Promise<void> {
  const runs = await readChunkFates(paths, (runId, s) => s === stage && runId !== exceptRunId);
  for (const [runId, { stages, ended }] of runs) {
    const file = paths.importedIndex(runId, stage);
    if (await readImportedIndex(file, (item) => visit(item, runId))) continue;
    const fates = stages.get(stage) ?? [];
    // A run that ended imports nothing more: its index is written as its chunk files are read, once.
    if (ended) await visitKeeping(file, importedItems(paths, runId, stage, fates), (item) => visit(item, runId));
    else for await (const item of importedItems(paths, runId, stage, fates)) visit(item, runId);
  }
}

/**
 * Visits the items as they are written to the index. The index is only a saving: when it cannot be written
 * (a state folder read-only to verification), the items not visited yet are visited all the same.
 */
async function visitKeeping(file: string, items: AsyncIterable<ImportedItem>, visit: (item: ImportedItem) => void): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  // A chunk file that cannot be read, or a visit that throws, is no failure to write the index.
  let readFailure: { error: unknown } | undefined;
  async function* visited(): AsyncGenerator<ImportedItem> {
    try {
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
        visit(next.value);
        yield next.value;
      }
    } catch (error) {
      readFailure = { error };
      throw error;
    }
  }
  try {
    await writeImportedIndex(file, visited());
  } catch {
    if (readFailure !== undefined) throw readFailure.error;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) visit(next.value);
  }
}

/** A run's imported items of a stage, from its chunk files (gone once the run folder is pruned). */
async function* importedItems(paths: RunPaths, runId: string, stage: StageName, fates: readonly ChunkFate[]): AsyncGenerator<ImportedItem> {
  for (const fate of fates) {
    if (!fate.done) continue;
    const items = await readChunk(paths.chunkFile(runId, stage, fate.seq));
    for (const [index, item] of items.entries()) {
      const imported = fate.refused.has(index) || item === null || typeof item !== 'object' ? undefined : importedItemOf(item as Record<string, unknown>);
      if (imported !== undefined) yield imported;
    }
  }
}

/**
 * Before a finished run's folder is removed (`runs prune`): its imported items of each stage written to
 * its imported index outside the folder, which later runs read instead. Without it a record the run
 * imported and the platform deleted since would be sent again (the platform skips it: counted imported,
 * created nowhere) and verification could only call it missing.
 */
export async function keepImportedIndex(paths: RunPaths, runId: string): Promise<void> {
  const run = (await readChunkFates(paths, (id) => id === runId)).get(runId);
  for (const [stage, fates] of run?.stages ?? []) {
    const file = paths.importedIndex(runId, stage);
    if (await hasImportedIndex(file)) continue;
    await writeImportedIndex(file, importedItems(paths, runId, stage, fates));
  }
}

/**
 * The records of a stage that an earlier run of the state folder imported and that are `gone` from the
 * platform now (deleted there since): idempotency key → the run that imported it (the earliest). The
 * platform keeps a used key (decisions.md): sent again, such a record is skipped and nothing is created,
 * so a run must not count it imported. Only these are kept in memory.
 */
export async function deletedSinceImported(paths: RunPaths, runId: string, stage: StageName, gone: (item: ImportedItem) => boolean): Promise<Map<string, string>> {
  const deleted = new Map<string, string>();
  await forEachEarlierImport(paths, stage, runId, (item, run) => {
    if (!deleted.has(item.idempotencyKey) && gone(item)) deleted.set(item.idempotencyKey, run);
  });
  return deleted;
}

async function readChunk(file: string): Promise<unknown[]> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const items: unknown = parseJsonExact(text, 'bigint');
  return Array.isArray(items) ? items : [];
}
