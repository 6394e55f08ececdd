import { isNotFoundError, type ChatportClient } from '../../../api/index.js';
import type { StageConfig } from '../../../config/index.js';
import { detachString } from '../../../shared/detach-string.js';
import { inOrderAhead } from '../../../shared/in-order-ahead.js';
import { parseInt64, type Int64 } from '../../../shared/int64.js';
import type { JournalEvent } from '../../state/events.js';
import { readJournalEvents } from '../../state/journal.js';
import { refOfReplyKey, repliesMayNest } from './refs.js';

/**
 * Roots a channel's messages do not hold may be replies an earlier run sent into a thread: a Discord thread
 * opened on an inline reply, or an inline reply answering one, in a later `--after` export (the reply
 * itself older than the range); a `thread:` pipeline's reply to an earlier run's reply. Their replies join
 * that thread, as the earlier run's chain did. Where each went is in the state folder's journal
 * (`reply-sent` with `thread`, written for such stages only), so no thread is searched: the journals are
 * read once, and only each thread found is asked for (`GET /threads/{id}`: still there, and of the reply's
 * channel, as a root is looked for only in its reply's channel). Slack and Mattermost replies name no
 * reply: nothing is read for them. A reply sent by a version before this one is not found (an orphan, as
 * before).
 */
export interface EarlierReplyThread {
  channelId: string;
  ref: string;
  thread: Int64;
}

/** The lacking roots (channel id → refs) that earlier runs sent into a thread of that channel, with the thread. */
export async function threadsOfEarlierReplies(
  client: ChatportClient,
  stage: StageConfig,
  journals: readonly string[],
  lacking: ReadonlyMap<string, ReadonlySet<string>>,
  signal: AbortSignal,
): Promise<EarlierReplyThread[]> {
  if (!repliesMayNest(stage) || journals.length === 0 || lacking.size === 0) return [];
  const placed = await placementsOf(stage, journals, new Set([...lacking.values()].flatMap((refs) => [...refs])));
  const threads = [...new Set([...placed.values()].filter((t) => t !== undefined).map(String))];
  const channelOf = new Map<string, string | undefined>();
  const reads = inOrderAhead(threads, stage.options.concurrency, async (thread) => ({ thread, channel: await channelOfThread(client, parseInt64(thread)!, signal) }));
  for await (const { thread, channel } of reads) channelOf.set(thread, channel);
  const found: EarlierReplyThread[] = [];
  for (const [channelId, refs] of lacking) {
    for (const ref of refs) {
      const thread = placed.get(ref);
      if (thread !== undefined && channelOf.get(String(thread)) === channelId) found.push({ channelId, ref, thread });
    }
  }
  return found;
}

/** Ref → the thread the journals' last word on it put it in (undefined: the channel, as an orphan, or no thread told). */
async function placementsOf(stage: StageConfig, journals: readonly string[], wanted: ReadonlySet<string>): Promise<Map<string, Int64 | undefined>> {
  const placed = new Map<string, Int64 | undefined>();
  for (const journal of journals) {
    await readJournalEvents<JournalEvent>(journal, (e) => {
      if (e.t !== 'reply-sent' || e.stage !== 'messages') return;
      const ref = refOfReplyKey(stage, e.key);
      if (ref !== undefined && wanted.has(ref)) placed.set(detachString(ref), e.thread);
    }, { containing: '"reply-sent"' });
  }
  return placed;
}

/** The channel (decimal id) a thread is in; undefined when the platform no longer has it (its root deleted since). */
async function channelOfThread(client: ChatportClient, thread: Int64, signal: AbortSignal): Promise<string | undefined> {
  try {
    const href = (await client.threads.get(thread, { signal }))._links?.channel?.href;
    const channel = href === undefined ? undefined : parseInt64(href.slice(href.lastIndexOf('/') + 1));
    return channel === undefined ? undefined : String(channel);
  } catch (error) {
    if (isNotFoundError(error)) return undefined;
    throw error;
  }
}
