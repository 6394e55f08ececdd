import { detachString } from '../../shared/detach-string.js';
import { PERSON_MESSAGE_TYPES, THREAD_STARTER, messageKind } from '../../transform/discord/index.js';

/**
 * Pass 1 over a channel's own files: the system messages an inline reply answers (a "Wave to say hi!" on a
 * join note). Under `systemMessages: skip` these are kept, as a thread's `ThreadCreated` note is: skipped,
 * their replies would be orphans at the channel's end. Reads the raw record (the messages pass checks
 * it). Bounded: past `max` remembered system messages the oldest are forgotten (a reply to one of them is an
 * orphan, as before).
 */
export class AnsweredSystemMessages {
  private readonly system = new Set<string>();
  constructor(
    private readonly channelId: string,
    private readonly markAnswered: (messageId: string) => void,
    private readonly max = 100_000,
  ) {}

  note(value: unknown): void {
    const m = value as { id?: unknown; type?: unknown; reference?: { messageId?: unknown; channelId?: unknown } | null } | null;
    if (typeof m !== 'object' || m === null || typeof m.id !== 'string' || typeof m.type !== 'string') return;
    const type = messageKind(m.type);
    if (type === 'Reply') {
      const to = m.reference?.messageId;
      // A reply to another channel's message is not in this channel's chains (noteReplyChain).
      if (typeof to === 'string' && (m.reference?.channelId ?? this.channelId) === this.channelId && this.system.has(to)) this.markAnswered(to);
      return;
    }
    if (PERSON_MESSAGE_TYPES.has(type) || type === THREAD_STARTER) return;
    if (this.system.size >= this.max) this.system.delete(this.system.values().next().value!);
    // Ids cut from the parser's input would keep its chunks alive (detach-string.ts).
    this.system.add(detachString(m.id));
  }
}
