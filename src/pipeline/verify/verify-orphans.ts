import type { ChatportClient, Message } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { parseInt64 } from '../../shared/int64.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { repliesAt } from '../import/replies/deliver.js';
import { keyHashText, type ExpectedReplies } from './expected-replies.js';

/**
 * Orphans (replies whose root is not on the platform) are judged as a set per channel, by their key, as
 * thread replies are: the replies pass sent them after the messages the channel held then, so where they sit
 * depends on when they were sent, not on the source (docs/verify.md). Each channel with orphans is read once.
 * Returns, for each orphan its channel holds, the platform's message (its content is compared as a thread
 * reply's is); the others are for the caller to expect.
 */
export async function orphansHeld(
  client: ChatportClient,
  stage: StageConfig,
  replies: ExpectedReplies,
  orphans: readonly number[],
  channels: ReadonlyMap<string, { id: string }>,
  signal: AbortSignal,
): Promise<Map<number, Message>> {
  /** Channel id → key hash → orphan index. */
  const byChannel = new Map<string, Map<string, number>>();
  for (const i of orphans) {
    const channel = channels.get(replies.channelKeyOf(i));
    if (channel === undefined) continue;
    let wanted = byChannel.get(channel.id);
    if (!wanted) byChannel.set(channel.id, (wanted = new Map()));
    wanted.set(replies.keyHashOf(i), i);
  }
  const held = new Map<number, Message>();
  const reads = inOrderAhead(byChannel, stage.options.concurrency, async ([channelId, wanted]) => {
    const messages = await repliesAt({ client, stage, signal }, { kind: 'channel', channelId: parseInt64(channelId)! }, (message) => message, (key) => wanted.has(keyHashText(key)));
    return { wanted, messages };
  });
  for await (const { wanted, messages } of reads) for (const [key, message] of messages) held.set(wanted.get(keyHashText(key))!, message);
  return held;
}
