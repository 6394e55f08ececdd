import type { StageConfig } from '../../../config/index.js';
import { forEachEarlierImport } from '../../state/earlier-imports.js';
import { RunPaths } from '../../state/run-paths.js';
import { KeyHashSet } from '../../verify/key-set.js';
import { mayBeReply, messageRefOf } from './refs.js';

/**
 * Whether a run of the state folder(s) imported the message a root ref names: loaded on the first call only
 * (a run whose export holds every root it names never reads a chunk), then answered from memory.
 */
export type EarlierRoots = () => Promise<(ref: string) => boolean>;

/**
 * The roots earlier runs imported, for a date-ranged (nightly) export whose replies name a root an earlier
 * export held: such a reply goes into that root's thread, as it would in one export, not into the channel as
 * an orphan. Read from the runs' chunk files (earlier-imports.ts: done chunks, refused items left out), no
 * platform read; whether the root is still there is the roots step's to find (deleted since: an orphan).
 * Every message that is no reply is kept (a root exported before its first reply carries no thread facts),
 * as a 64-bit hash: 8 to 16 bytes a message. `exceptRunIds`: the runs of this export (the one importing now,
 * or those verified): a root they imported is in this export (the reader asks only about roots older than
 * the export's first day, read-slack-stage.ts, so a re-run of the same export places its replies as before).
 */
export function earlierRootsOf(stage: StageConfig, stateDirs: readonly string[], exceptRunIds: ReadonlySet<string>): EarlierRoots {
  let loaded: Promise<(ref: string) => boolean> | undefined;
  return () => (loaded ??= load());
  async function load(): Promise<(ref: string) => boolean> {
    const refs = new KeyHashSet();
    for (const dir of stateDirs)
      await forEachEarlierImport(new RunPaths(dir), 'messages', undefined, (item, runId) => {
        if (exceptRunIds.has(runId) || mayBeReply(stage, item.properties)) return;
        const ref = messageRefOf(stage, item.properties);
        if (ref !== undefined) refs.add(ref);
      });
    return (ref) => refs.size > 0 && refs.has(ref);
  }
}
