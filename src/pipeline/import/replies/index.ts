import { join } from 'node:path';
import type { ChatportClient } from '../../../api/index.js';
import type { StageConfig } from '../../../config/index.js';
import type { Accepted } from '../../../transform/index.js';
import type { JournalEvent } from '../../state/events.js';
import type { Journal } from '../../state/journal.js';
import type { RepliesState } from '../../state/run-state.js';
import { isPlacedOrphan, parentRefOf, replyKeyOf, sendsReplies } from './refs.js';
import { rootsWanted, spooledChains } from './chains.js';
import { findRootThreads } from './roots.js';
import { sendReplies, type ReplyOutcome } from './send-replies.js';
import { ReplySpool, sendBodyOf } from './spool.js';
import { KeyHashSet } from '../../verify/key-set.js';
import { channelsThatExisted } from '../held-copies.js';
import type { HeldRecords } from '../held-records.js';

export { sendsReplies, parentRefOf, messageRefOf, replyKeyOf, hasChannelCopy } from './refs.js';
export { replyThreadIdOf } from './roots.js';
export type { ReplyOutcome } from './send-replies.js';

/**
 * Reply threads in the messages stage (docs/threads.md): replies are held back from the import chunks,
 * spooled, and sent into their roots' threads once every import of the stage has finished.
 */
export interface StageReplies {
  /** The ref of the message a record replies to, when it is a reply to send into a thread. */
  parentOf(record: Accepted): string | undefined;
  /** Whether a record goes into its channel with the imports as an orphan (its root is not in the source). */
  isPlacedOrphan(record: Accepted): boolean;
  /** Holds a reply back for the replies pass (writes nothing in a dry run or a validation). */
  queue(record: Accepted, parent: string): Promise<void>;
  /** How many replies were held back. */
  readonly queued: number;
  /** After the imports: finds the roots and sends every reply, telling each outcome. */
  finish(onOutcome: (outcome: ReplyOutcome) => Promise<void>): Promise<void>;
}

export interface StageRepliesInput {
  stage: StageConfig;
  runDir: string;
  /** Import mode: spool and send; otherwise only count. `held`: compares replies found already there. */
  /** `journalPath`: the state folder's journal, where earlier runs' replies went (earlier-threads.ts). */
  sending?: { client: ChatportClient; journal: Journal<JournalEvent>; journalPath: string; state: RepliesState; signal: AbortSignal; held?: HeldRecords | undefined };
}

export async function openStageReplies(input: StageRepliesInput): Promise<StageReplies | undefined> {
  const { stage } = input;
  if (!sendsReplies(stage)) return undefined;
  const spool = input.sending ? await ReplySpool.open(join(input.runDir, 'replies', 'spool.ndjson')) : undefined;
  /** Channel id → the refs of roots wanted there. */
  const wanted = new Map<string, Set<string>>();
  let queued = 0;
  const replyKeys = new KeyHashSet();
  return {
    parentOf: (record) => parentRefOf(stage, record),
    isPlacedOrphan: (record) => isPlacedOrphan(stage, record),
    get queued() {
      return queued;
    },
    async queue(record, parent) {
      queued++;
      if (!spool) return;
      const channelId = String(record.channelId);
      let refs = wanted.get(channelId);
      if (!refs) wanted.set(channelId, (refs = new Set()));
      refs.add(parent);
      const key = replyKeyOf(stage, record.item.properties) ?? record.sourceKey;
      replyKeys.add(key);
      await spool.write({
        key, parent, channelId: record.channelId!, body: sendBodyOf(record.item), sourceKey: record.sourceKey, item: record.item, position: record.position,
        ...(record.slotSiblings ? { slotSiblings: record.slotSiblings } : {}),
      });
    },
    async finish(onOutcome) {
      if (!spool || !input.sending) return;
      await spool.close();
      const { client, journal, journalPath, state, signal, held } = input.sending;
      // A reply to a reply goes into the thread its chain starts from (chains.ts): only those roots are looked for.
      const chains = await spooledChains(spool.path, wanted, replyKeys);
      const { threads: roots, empty } = await findRootThreads(client, stage, rootsWanted(wanted, chains.rootOf), join(input.runDir, 'replies', 'roots.json'), signal, [journalPath]);
      // Copies are looked for (and moved, move.ts) only in this pipeline's channels that existed before the
      // run: a channel the run created holds no earlier copy, and in any other (a DIRECT channel made by
      // hand, a run without a channels stage) a message of the same key may be another pipeline's.
      const existed = await channelsThatExisted(input.runDir);
      const mayHoldCopies = (channelId: string) => existed?.has(channelId) === true;
      await sendReplies({ client, stage, spoolPath: spool.path, roots, chains, emptyThreads: empty, replyKeys, mayHoldCopies, state, journal, ...(held ? { held } : {}), concurrency: stage.options.concurrency, signal, onOutcome });
    },
  };
}
