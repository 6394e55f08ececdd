import { createHash } from 'node:crypto';

/**
 * Post ids where two messages of a channel share channel, time, author and text. Mattermost's own
 * import takes a root post for one it holds when those match, but a reply only when its thread matches
 * too (`importReplies` compares the root): a bot's "ack" in two threads in the same millisecond is two
 * posts. The first such message in read order keeps the plain id (the one earlier versions gave it, so
 * a platform they migrated still matches); a later one in another thread gets `<id>/in/<8 hex of its
 * thread>`. The same message again in the same thread keeps the plain id: a duplicate, as before.
 *
 * Remembering every id would not fit a channel of millions of posts: the reader first notes a 32-bit
 * hash of every id (4 bytes a message), and only ids whose hash is seen twice are remembered.
 */
export class SharedIdHashes {
  private hashes = new Uint32Array(1024);
  private size = 0;

  note(id: string): void {
    if (this.size === this.hashes.length) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.size++] = hashOf(id);
  }

  /** The hashes noted more than once; the noted ones are dropped. */
  shared(): Set<number> {
    const sorted = this.hashes.subarray(0, this.size).sort();
    const shared = new Set<number>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) shared.add(sorted[i]!);
    this.hashes = new Uint32Array(0);
    this.size = 0;
    return shared;
  }
}

/** Where a message belongs for this comparison: a root post (any root), or the thread of the root with this id. */
export const ROOT_POSTS = '';

export class PostIds {
  private readonly firstThread = new Map<string, string>();
  constructor(private readonly shared: ReadonlySet<number>) {}

  /** The id of a message whose plain id is `id`, in `thread` (ROOT_POSTS for a root post). */
  idOf(id: string, thread: string): string {
    if (!this.shared.has(hashOf(id))) return id;
    const first = this.firstThread.get(id);
    if (first === undefined) this.firstThread.set(id, thread);
    return first === undefined || first === thread ? id : `${id}/in/${createHash('sha1').update(thread).digest('hex').slice(0, 8)}`;
  }
}

/** FNV-1a, 32 bits: a cheap hash for telling ids apart (a clash only costs a remembered id). */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * A root post's slot: its id without the text's hash (`<channel>/<create_at>/<author>`), which an edit
 * keeps. Undefined for another id (a reply's `/in/` form). A post edited between two exports has another
 * id (its text's hash) in the same slot: the import finds its earlier copy there (held-message-copies.ts).
 */
export function postSlotOf(id: string): string | undefined {
  if (IN_THREAD.test(id)) return undefined;
  const match = PLAIN_ID.exec(id);
  return match?.[1];
}

const PLAIN_ID = /^(.+\/\d+\/[^/]+)\/[0-9a-f]{8}$/;
const IN_THREAD = /\/[0-9a-f]{8}\/in\/[0-9a-f]{8}$/;

/** What a post of a crowded slot carries when the posts of its millisecond were too many to hold: its siblings are not known. */
export const SIBLINGS_UNKNOWN: readonly string[] = Object.freeze([]);

/** What withSlotSiblings needs of a root post: its time, its slot (postSlotOf of its id) and its id (made only in a crowded slot). */
export interface SlotFacts {
  time: number;
  slot: string;
  id(): string;
}

/**
 * Each root post with the ids of the export's root posts of its slot, its own among them, in the order they
 * are sent, when the slot is crowded (`crowded`: hashes of slots noted twice; more than one post of one
 * author in one channel in one millisecond), else undefined. Posts come by `create_at`, so a slot's posts
 * are all in one group of equal times: a group is held until its time ends when any slot is crowded (at
 * most MAX_GROUP posts; past that its crowded posts get SIBLINGS_UNKNOWN, and an edit among them is not
 * told from a new post).
 */
export function* withSlotSiblings<T>(posts: Iterable<T>, crowded: ReadonlySet<number>, factsOf: (post: T) => SlotFacts): Generator<[T, readonly string[] | undefined]> {
  if (crowded.size === 0) {
    for (const post of posts) yield [post, undefined];
    return;
  }
  let group: Array<[T, SlotFacts]> = [];
  let time: number | undefined;
  let overflow = false;
  const flush = function* (): Generator<[T, readonly string[] | undefined]> {
    const crowdedIn = group.map(([, facts]) => crowded.has(hashOf(facts.slot)));
    // A set per slot: the same post listed twice is one (a duplicate).
    const slots = new Map<string, Set<string>>();
    if (!overflow)
      group.forEach(([, facts], i) => {
        if (crowdedIn[i]) (slots.get(facts.slot) ?? slots.set(facts.slot, new Set()).get(facts.slot)!).add(facts.id());
      });
    // One array per slot, shared by its posts (the import's look-up remembers its work by it).
    const lists = new Map([...slots].map(([slot, ids]) => [slot, [...ids]]));
    for (const [i, [post, facts]] of group.entries()) yield [post, crowdedIn[i] ? (lists.get(facts.slot) ?? SIBLINGS_UNKNOWN) : undefined];
    group = [];
  };
  for (const post of posts) {
    const facts = factsOf(post);
    if (facts.time !== time) {
      yield* flush();
      time = facts.time;
      overflow = false;
    }
    group.push([post, facts]);
    if (group.length > MAX_GROUP) {
      overflow = true;
      yield* flush();
    }
  }
  yield* flush();
}

const MAX_GROUP = 10_000;

/**
 * The slot's posts whose ids the platform does not hold, each paired with an earlier version: the slot's
 * held copies (`held`, in the platform's order, with their ids) that no post of the export claims by its
 * id, in order (docs/mattermost-migration.md "Edited posts"). `siblings`: the export's posts of the slot,
 * in order. A post left without one is new.
 */
export function pairEditedPosts<T>(siblings: readonly string[], holds: (id: string) => boolean, held: ReadonlyArray<[string, T]>): Map<string, T> {
  const unheld = siblings.filter((id) => !holds(id));
  const claimed = new Set(siblings);
  const unclaimed = held.filter(([id]) => !claimed.has(id));
  return new Map(unheld.slice(0, unclaimed.length).map((id, i) => [id, unclaimed[i]![1]]));
}
