import type { ChatportClient } from '../../api/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { replyKeyOf } from '../import/replies/index.js';
import type { RootThreads } from '../import/replies/roots.js';
import type { Token } from './message-columns.js';
import type { Difference, SourcePosition } from './types.js';

/**
 * Reply threads (docs/threads.md): each root's thread must hold exactly the source's replies to it, in
 * source order. A reply whose root is not on the platform is an orphan: expected in its channel instead
 * (after the channel's own messages, where the replies pass put it).
 */
export interface ExpectedReply {
  parent: string;
  key: string;
  sourceKey: string;
  position: SourcePosition;
  channelKey: string;
  token: Token;
  ordinal: number;
}

export interface ThreadsVerification {
  differences: Difference[];
  verified: number;
  /** Platform ids of the replies found in threads: not channel messages. */
  replyIds: Set<string>;
  /** Replies whose root has no thread on the platform. */
  orphans: ExpectedReply[];
}

export async function verifyThreads(
  client: ChatportClient,
  stage: StageConfig,
  replies: readonly ExpectedReply[],
  roots: RootThreads,
  signal?: AbortSignal,
): Promise<ThreadsVerification> {
  const out: ThreadsVerification = { differences: [], verified: 0, replyIds: new Set(), orphans: [] };
  const byParent = new Map<string, ExpectedReply[]>();
  for (const reply of replies) {
    if (!roots.has(reply.parent)) {
      out.orphans.push(reply);
      continue;
    }
    const list = byParent.get(reply.parent);
    if (list) list.push(reply);
    else byParent.set(reply.parent, [reply]);
  }
  for (const [parent, expected] of byParent) {
    const held = await threadReplies(client, stage, roots.get(parent)!, signal);
    for (const r of held) out.replyIds.add(r.id);
    compareThread(parent, expected, held, out);
  }
  return out;
}

async function threadReplies(client: ChatportClient, stage: StageConfig, threadId: Parameters<ChatportClient['threads']['get']>[0], signal?: AbortSignal): Promise<Array<{ key: string | undefined; id: string }>> {
  const out: Array<{ key: string | undefined; id: string }> = [];
  try {
    for await (const m of client.threads.messages(threadId, { pageSize: 100, ...(signal ? { signal } : {}) })) out.push({ key: replyKeyOf(stage, m.properties), id: String(m.id) });
  } catch (error) {
    // A root deleted since the run: its replies are all missing.
    if (!isNotFoundError(error)) throw error;
  }
  return out;
}

/** Missing and extra replies, then order: the replies both sides hold must come in the source's order. */
function compareThread(parent: string, expected: readonly ExpectedReply[], held: ReadonlyArray<{ key: string | undefined; id: string }>, out: ThreadsVerification): void {
  const heldKeys = new Map(held.map((h, i) => [h.key, i]));
  const wanted = new Set(expected.map((e) => e.key));
  let lastIndex = -1;
  for (const e of expected) {
    const at = heldKeys.get(e.key);
    const base = { stage: 'messages' as const, sourceKey: e.sourceKey, position: e.position, channelKey: e.channelKey };
    if (at === undefined) {
      out.differences.push({ kind: 'missing', ...base, message: `reply ${e.sourceKey} is not in the reply thread of ${parent}` });
      continue;
    }
    if (at < lastIndex) out.differences.push({ kind: 'out-of-order', ...base, platformId: held[at]!.id, message: `reply ${e.sourceKey} is in the reply thread of ${parent}, but not where the source puts it` });
    else out.verified++;
    lastIndex = Math.max(lastIndex, at);
  }
  for (const h of held)
    if (h.key === undefined || !wanted.has(h.key)) out.differences.push({ kind: 'extra', stage: 'messages', platformId: h.id, message: `the reply thread of ${parent} holds message ${h.id}, which the source does not reply there` });
}
