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
