import type { MessageOutcome } from '../../transform/chat-export/index.js';

type Message = Extract<MessageOutcome, { kind: 'message' }>;

/**
 * Inline replies (`Reply` messages of a channel file) into a thread the export also has a file for (of its
 * root, or of a thread opened on a reply in the root's chain). The
 * channel's own files are read before its threads' files, so sent as read, every inline reply would come
 * before all of the thread file's messages whatever their times. They are held back instead and given out
 * among the thread's messages by time; what a thread file does not take (it could not be read, or the
 * replies are later than all of it) comes after the channel's last file.
 */
export class HeldReplies {
  private readonly byRoot = new Map<string, Message[]>();
  /** When each reply was held: the order they were read (a file written newest first is read from its end). */
  private readonly heldAt = new WeakMap<Message, number>();
  private held = 0;

  /** `roots`: the roots whose reply threads thread files feed. */
  constructor(private readonly roots: ReadonlySet<string>) {}

  /** True when the outcome (of a channel's own file) is such a reply: it is held. */
  hold(outcome: MessageOutcome): boolean {
    if (outcome.kind !== 'message') return false;
    const thread = outcome.message.facts.thread;
    if (thread === undefined || thread.isRoot || !this.roots.has(thread.root)) return false;
    let held = this.byRoot.get(thread.root);
    if (!held) this.byRoot.set(thread.root, (held = []));
    held.push(outcome);
    this.heldAt.set(outcome, this.held++);
    return true;
  }

  /** A thread file's outcome, preceded by the replies held for its thread that were sent before it. */
  before(outcome: MessageOutcome): MessageOutcome[] {
    if (outcome.kind !== 'message' || this.byRoot.size === 0) return [outcome];
    const thread = outcome.message.facts.thread;
    const held = thread === undefined ? undefined : this.byRoot.get(thread.root);
    if (held === undefined) return [outcome];
    const time = outcome.message.facts.time;
    let earlier = 0;
    // Held in file order, which is time order in an export: the earlier ones are a prefix.
    while (earlier < held.length && held[earlier]!.message.facts.time < time) earlier++;
    if (earlier === 0) return [outcome];
    const out: MessageOutcome[] = held.splice(0, earlier);
    if (held.length === 0) this.byRoot.delete(thread!.root);
    out.push(outcome);
    return out;
  }

  /** Every reply still held (after the channel's last file), in the order they were read. */
  rest(): MessageOutcome[] {
    const out = [...this.byRoot.values()].flat().sort((a, b) => this.heldAt.get(a)! - this.heldAt.get(b)!);
    this.byRoot.clear();
    return out;
  }
}
