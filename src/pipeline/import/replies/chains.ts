import { rootKey } from './roots.js';
import { readSpool } from './spool.js';

/**
 * Replies to replies (docs/threads.md "Replies to replies"). Threads are one level on the platform, so a
 * reply whose parent is a reply of its channel goes where its parent goes: into the thread of the message
 * its chain starts from, in source order. A chain that starts from a message the platform does not hold
 * goes into the channel whole (every reply of it an orphan), and so does a ring of replies.
 */

/**
 * Where each node's chain ends: follows `next` until a node has none (that node is the end), memoizing the
 * nodes passed. Undefined for a node on a ring, or leading into one.
 */
export function chainEnds<T>(next: (node: T) => T | undefined): (node: T) => T | undefined {
  const ends = new Map<T, T | null>();
  return (start) => {
    const path: T[] = [];
    let onPath: Set<T> | undefined;
    let node = start;
    let end: T | null;
    for (;;) {
      const known = ends.get(node);
      if (known !== undefined) {
        end = known;
        break;
      }
      if (onPath?.has(node)) {
        end = null;
        break;
      }
      const following = next(node);
      if (following === undefined) {
        end = node;
        break;
      }
      path.push(node);
      (onPath ??= new Set()).add(node);
      node = following;
    }
    for (const passed of path) ends.set(passed, end);
    return end ?? undefined;
  };
}

/** The ref of the message a reply's thread hangs from, given the reply's channel and parent; undefined on a ring. */
export type ThreadRootOf = (channelId: string, parent: string) => string | undefined;

export interface ReplyChains {
  rootOf: ThreadRootOf;
  /** Whether a parent is a reply of the channel (so its reply hangs from the chain through it). */
  isReply(channelId: string, parent: string): boolean;
}

/**
 * The chains of the spooled replies. The spool is read once more only when some parent may be a reply
 * (`replyKeys`, hashes): then the replies other replies of their channel name are kept (key → parent).
 */
export async function spooledChains(spoolPath: string, wanted: ReadonlyMap<string, ReadonlySet<string>>, replyKeys: { has(key: string): boolean }): Promise<ReplyChains> {
  const parentOf = new Map<string, string>();
  if ([...wanted.values()].some((refs) => [...refs].some((ref) => replyKeys.has(ref)))) {
    for await (const reply of readSpool(spoolPath)) {
      const channelId = String(reply.channelId);
      if (wanted.get(channelId)?.has(reply.key) === true) parentOf.set(rootKey(channelId, reply.key), reply.parent);
    }
  }
  const endOf = chainEnds<string>((node) => {
    const parent = parentOf.get(node);
    return parent === undefined ? undefined : rootKey(node.slice(0, node.indexOf(':')), parent);
  });
  return {
    rootOf: (channelId, parent) => endOf(rootKey(channelId, parent))?.slice(channelId.length + 1),
    isReply: (channelId, parent) => parentOf.has(rootKey(channelId, parent)),
  };
}

/** The roots to look for: each channel's parents, taken to the roots of their chains. */
export function rootsWanted(wanted: ReadonlyMap<string, ReadonlySet<string>>, rootOf: ThreadRootOf): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [channelId, refs] of wanted) {
    const roots = new Set<string>();
    for (const ref of refs) {
      const root = rootOf(channelId, ref);
      if (root !== undefined) roots.add(root);
    }
    if (roots.size > 0) out.set(channelId, roots);
  }
  return out;
}
