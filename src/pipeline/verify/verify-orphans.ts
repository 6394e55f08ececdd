import type { ChatportClient, Message } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { parseInt64 } from '../../shared/int64.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { mayBeReply, replyKeyOf } from '../import/replies/refs.js';
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
  const reads = inOrderAhead(byChannel, stage.options.concurrency, async ([channelId, wanted]) => ({ wanted, found: await wantedIn(client, stage, channelId, wanted, signal) }));
  for await (const { wanted, found } of reads) for (const [hash, message] of found) held.set(wanted.get(hash)!, message);
  return held;
}

/** The channel's messages that are replies with a wanted key (by key hash; the first of a key). */
async function wantedIn(client: ChatportClient, stage: StageConfig, channelId: string, wanted: ReadonlyMap<string, number>, signal: AbortSignal): Promise<Map<string, Message>> {
  const found = new Map<string, Message>();
  for await (const message of client.channels.messages(parseInt64(channelId)!, { pageSize: 100, signal })) {
    if (!mayBeReply(stage, message.properties)) continue;
    const key = replyKeyOf(stage, message.properties);
    const hash = key === undefined ? undefined : keyHashText(key);
    if (hash !== undefined && wanted.has(hash) && !found.has(hash)) found.set(hash, message);
  }
  return found;
}
