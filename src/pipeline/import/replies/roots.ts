import { readFile } from 'node:fs/promises';
import type { ChatportClient } from '../../../api/index.js';
import type { StageConfig } from '../../../config/index.js';
import { detachString } from '../../../shared/detach-string.js';
import { parseInt64, type Int64 } from '../../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../../shared/lossless-json.js';
import type { Message } from '../../../wire/resources.js';
import { inOrderAhead } from '../../../shared/in-order-ahead.js';
import { writeFileAtomic } from '../../state/atomic-file.js';
import { rootRefsOf } from './refs.js';
import { threadsOfEarlierReplies } from './earlier-threads.js';

/**
 * Finds the roots replies hang from: imports return no ids, so each channel that has roots is read once,
 * oldest first, until every wanted root is found (or the channel ends: a root that is not there was
 * rejected or refused, and its replies become orphans). The roots found are kept in the run folder so a
 * resumed run (or a later verify) does not read the channels for them again. The file lists found roots only,
 * so it says nothing about a root it lacks: that root may have been imported since (a later run, another
 * shard, an export re-made with more days), and its channel is read again.
 * A root answers only the replies of its own channel (`rootKey`): a reply naming a root of another channel
 * is an orphan in its own channel, whichever other reply had that root's channel read.
 * A root the channel does not hold may be a reply an earlier run sent into a thread: the state folder's
 * journal tells which (earlier-threads.ts), and its replies join that thread.
 */
export type RootThreads = Map<string, Int64>;

/** The key of `RootThreads` (and of roots.json): a root is looked for in the channel of its replies. */
export function rootKey(channelId: string, ref: string): string {
  return `${channelId}:${ref}`;
}

export interface FoundRoots {
  /** rootKey(channel id, root ref) → its reply thread. */
  threads: RootThreads;
  /**
   * Threads this process saw with `repliesCount` 0 (never from the cache: a resumed run may have sent
   * since). Nothing can be in them yet, so their first send needs no look at what they hold.
   */
  empty: ReadonlySet<string>;
}

/** A message's reply thread id, from `_links.replies` (decisions.md "Threads"). */
export function replyThreadIdOf(message: Message): Int64 | undefined {
  const href = (message._links as Record<string, { href?: string }> | undefined)?.replies?.href;
  return href === undefined ? undefined : parseInt64(href.slice(href.lastIndexOf('/') + 1));
}

export async function findRootThreads(
  client: ChatportClient,
  stage: StageConfig,
  wanted: ReadonlyMap<string, ReadonlySet<string>>,
  cacheFile: string | undefined,
  signal: AbortSignal,
  /** State folders' journals: where earlier runs sent the replies that are roots now (earlier-threads.ts). */
  journals: readonly string[] = [],
): Promise<FoundRoots> {
  const found: RootThreads = cacheFile === undefined ? new Map() : await readCachedRoots(cacheFile);
  const toRead = refsNotIn(wanted, found);
  const empty = new Set<string>();
  if (toRead.size === 0) return { threads: found, empty };
  // Channels are read `concurrency` at a time (each page waits on the platform); what they hold is
  // gathered in the order of `wanted`, so the cache file is the same whichever answer came first.
  const reads = inOrderAhead(toRead, stage.options.concurrency, async ([channelId, refs]) => ({ channelId, roots: await rootsInChannel(client, stage, channelId, refs, signal) }));
  for await (const { channelId, roots } of reads) {
    for (const root of roots) {
      const key = rootKey(channelId, root.ref);
      if (found.has(key)) continue;
      found.set(key, root.thread);
      if (root.empty) empty.add(String(root.thread));
    }
  }
  for (const root of await threadsOfEarlierReplies(client, stage, journals, refsNotIn(toRead, found), signal)) found.set(rootKey(root.channelId, root.ref), root.thread);
  if (cacheFile !== undefined) await writeFileAtomic(cacheFile, stringifyJson(Object.fromEntries(found)));
  return { threads: found, empty };
}

/** The roots an earlier read found (none when the file is absent or unreadable: the channels are read). */
async function readCachedRoots(cacheFile: string): Promise<RootThreads> {
  const cached = await readFile(cacheFile, 'utf8').then((t) => parseJsonExact(t, 'bigint') as Record<string, Int64>, () => undefined);
  return new Map(cached && typeof cached === 'object' ? Object.entries(cached) : []);
}

/** The wanted refs the cache does not answer for, by channel (channels it answers in full are left out). */
function refsNotIn(wanted: ReadonlyMap<string, ReadonlySet<string>>, found: RootThreads): Map<string, ReadonlySet<string>> {
  const out = new Map<string, ReadonlySet<string>>();
  for (const [channelId, refs] of wanted) {
    const lacking = [...refs].filter((ref) => !found.has(rootKey(channelId, ref)));
    if (lacking.length > 0) out.set(channelId, lacking.length === refs.size ? refs : new Set(lacking));
  }
  return out;
}

interface FoundRoot {
  ref: string;
  thread: Int64;
  /** The root's `repliesCount` was 0 when read. */
  empty: boolean;
}

/** The wanted roots one channel holds, read oldest first until every one of them is found (or the channel ends). */
async function rootsInChannel(client: ChatportClient, stage: StageConfig, channelId: string, refs: ReadonlySet<string>, signal: AbortSignal): Promise<FoundRoot[]> {
  const roots: FoundRoot[] = [];
  const seen = new Set<string>();
  let missing = refs.size;
  for await (const message of client.channels.messages(parseInt64(channelId)!, { pageSize: 100, signal })) {
    for (const ref of rootRefsOf(stage, message.properties)) {
      if (!refs.has(ref) || seen.has(ref)) continue;
      const thread = replyThreadIdOf(message);
      if (thread !== undefined) {
        // A ref cut from the page's text would keep the whole page alive (detach-string.ts).
        const kept = detachString(ref);
        seen.add(kept);
        roots.push({ ref: kept, thread, empty: message.repliesCount === 0 });
      }
      missing--;
    }
    if (missing === 0) break;
  }
  return roots;
}
