import type { ChatportClient } from '../../api/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { replyKeyOf } from '../import/replies/index.js';
import type { RootThreads } from '../import/replies/roots.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { where } from './describe.js';
import { keyHashText, type ExpectedReplies } from './expected-replies.js';
import { MessageIdSet } from './key-set.js';
import type { SourceMessage } from './source-messages.js';
import type { Difference } from './types.js';

/**
 * Reply threads (docs/threads.md): each root's thread must hold exactly the source's replies to it, in
 * source order. A reply whose root is not on the platform is an orphan: looked for in its channel instead
 * (verify-orphans.ts). Replies are matched by a 64-bit hash
 * of their key (expected-replies.ts); those that differ are named by a second read of the source.
 */
export interface ThreadsVerification {
  differences: Difference[];
  verified: number;
  /** Platform ids of the replies found in threads: not channel messages. */
  replyIds: MessageIdSet;
  /** Indexes (into the expected replies) of replies whose root has no thread on the platform. */
  orphans: number[];
}

/** The source records at these ordinals (source-messages.ts readMessagesAt): read only when a reply differs. */
export type NameReplies = (ordinals: ReadonlySet<number>) => Promise<ReadonlyMap<number, SourceMessage>>;

interface ReplyFinding {
  kind: 'missing' | 'out-of-order';
  reply: number;
  parent: string;
  platformId?: string;
}

interface HeldReply {
  key: string | undefined;
  id: string;
}

export async function verifyThreads(
  client: ChatportClient,
  stage: StageConfig,
  replies: ExpectedReplies,
  roots: RootThreads,
  nameReplies: NameReplies,
  signal?: AbortSignal,
): Promise<ThreadsVerification> {
  const out: ThreadsVerification = { differences: [], verified: 0, replyIds: new MessageIdSet(), orphans: [] };
  const findings: ReplyFinding[] = [];
  // Threads are read `concurrency` at a time (each read waits on the platform), and compared in order.
  const reads = inOrderAhead(replies.byParent(), stage.options.concurrency, async ({ parent, replies: group }) => {
    const thread = roots.get(parent);
    return { parent, group, held: thread === undefined ? undefined : await threadReplies(client, stage, thread, signal) };
  });
  for await (const { parent, group, held } of reads) {
    if (held === undefined) {
      out.orphans.push(...group);
      continue;
    }
    for (const r of held) out.replyIds.add(r.id);
    out.verified += compareThread(parent, replies, group, held, findings, out.differences);
  }
  out.differences.push(...(await describeFindings(findings, replies, nameReplies)));
  return out;
}

async function threadReplies(client: ChatportClient, stage: StageConfig, threadId: Parameters<ChatportClient['threads']['get']>[0], signal?: AbortSignal): Promise<HeldReply[]> {
  const out: HeldReply[] = [];
  try {
    for await (const m of client.threads.messages(threadId, { pageSize: 100, ...(signal ? { signal } : {}) })) out.push({ key: replyKeyOf(stage, m.properties), id: String(m.id) });
  } catch (error) {
    // A root deleted since the run: its replies are all missing.
    if (!isNotFoundError(error)) throw error;
  }
  return out;
}

/**
 * Missing and extra replies, then order: the replies both sides hold must come in the source's order.
 * Returns how many were verified; extras go straight to `differences` (they have no source record).
 */
function compareThread(parent: string, replies: ExpectedReplies, group: Uint32Array, held: readonly HeldReply[], findings: ReplyFinding[], differences: Difference[]): number {
  const heldAt = new Map(held.map((h, i) => [h.key === undefined ? undefined : keyHashText(h.key), i]));
  const wanted = new Set<string>();
  let verified = 0;
  let lastIndex = -1;
  for (const reply of group) {
    const key = replies.keyHashOf(reply);
    wanted.add(key);
    const at = heldAt.get(key);
    if (at === undefined) {
      findings.push({ kind: 'missing', reply, parent });
      continue;
    }
    if (at < lastIndex) findings.push({ kind: 'out-of-order', reply, parent, platformId: held[at]!.id });
    else verified++;
    lastIndex = Math.max(lastIndex, at);
  }
  for (const h of held)
    if (h.key === undefined || !wanted.has(keyHashText(h.key)))
      differences.push({ kind: 'extra', stage: 'messages', platformId: h.id, message: `the reply thread of ${parent} holds message ${h.id}, which the source does not reply there` });
  return verified;
}

async function describeFindings(findings: readonly ReplyFinding[], replies: ExpectedReplies, nameReplies: NameReplies): Promise<Difference[]> {
  if (findings.length === 0) return [];
  const source = await nameReplies(new Set(findings.map((f) => replies.ordinal[f.reply]!)));
  return findings.map((f) => {
    const src = source.get(replies.ordinal[f.reply]!);
    const base = { stage: 'messages' as const, ...(src ? { sourceKey: src.sourceKey, position: src.position } : {}), channelKey: replies.channelKeyOf(f.reply) };
    const name = src ? `reply ${src.sourceKey} (${where(src.position)})` : 'a reply';
    return f.kind === 'missing'
      ? { kind: 'missing', ...base, message: `${name} is not in the reply thread of ${f.parent}` }
      : { kind: 'out-of-order', ...base, platformId: f.platformId!, message: `${name} is in the reply thread of ${f.parent}, but not where the source puts it` };
  });
}
