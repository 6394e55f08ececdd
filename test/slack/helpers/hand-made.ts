import {
  createSlackDirectoryBuilder,
  createSlackMappingContext,
  createSlackMessageMapper,
  type ConversationKind,
  type Outcome,
  type PendingMessage,
  type SlackMappingContext,
  type SlackMappingOptions,
} from '../../../src/transform/slack/index.js';

/** A small workspace written by hand, mapped without any files. */
export interface HandMade {
  users?: unknown[];
  channels?: unknown[];
  groups?: unknown[];
  dms?: unknown[];
  mpims?: unknown[];
  /** channel id → day files (date → messages), in the order given. */
  days?: Record<string, Record<string, unknown[]>>;
}

const FILES: Record<ConversationKind, string> = { channel: 'channels.json', group: 'groups.json', dm: 'dms.json', mpim: 'mpims.json' };

export function contextOf(input: HandMade, options: SlackMappingOptions & { teamId?: string } = {}): SlackMappingContext {
  const builder = createSlackDirectoryBuilder(options);
  (input.users ?? []).forEach((u, index) => builder.addUser({ file: 'users.json', index }, u));
  const lists: [ConversationKind, unknown[] | undefined][] = [['channel', input.channels], ['group', input.groups], ['dm', input.dms], ['mpim', input.mpims]];
  for (const [kind, list] of lists) (list ?? []).forEach((c, index) => builder.addConversation(kind, { file: FILES[kind], index }, c));
  for (const [channel, days] of Object.entries(input.days ?? {}))
    for (const [date, messages] of Object.entries(days)) messages.forEach((m, index) => builder.noteMessage({ file: `${channel}/${date}.json`, index }, m));
  return createSlackMappingContext(builder.build(), options);
}

/** Maps every channel's days in the order given; one outcome per message. */
export function mapMessages(input: HandMade, options: SlackMappingOptions & { teamId?: string } = {}): Outcome<PendingMessage>[] {
  const context = contextOf(input, options);
  const mapper = createSlackMessageMapper(context);
  const out: Outcome<PendingMessage>[] = [];
  for (const [channel, days] of Object.entries(input.days ?? {})) {
    for (const [date, messages] of Object.entries(days)) out.push(...mapper.mapDay(channel, `${channel}/${date}.json`, messages));
    mapper.endChannel(channel);
  }
  return out;
}

/** The items of the outcomes, in order. */
export function itemsOf(outcomes: Outcome<PendingMessage>[]): PendingMessage[] {
  return outcomes.flatMap((o) => (o.outcome === 'items' ? o.items : []));
}

/** `properties.source` of an item, typed loosely for assertions. */
export function sourceOf(item: { properties?: Record<string, unknown> | undefined }): Record<string, unknown> {
  return item.properties!.source as Record<string, unknown>;
}
