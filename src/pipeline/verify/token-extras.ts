/**
 * The extras of every hunk by token, for missing messages to find their equal in (compare-messages.ts
 * pairIdentical): in their own channel first, else the first left anywhere. Kept per token and per channel
 * with a cursor over each, so that n takes cost about n steps: a channel re-keyed on the platform makes a
 * million missing messages look among a million extras of another channel, and a search of the whole list
 * for each (findIndex, then splice) took minutes at 160,000 and hours beyond.
 */
export interface Loose {
  channelKey: string;
  index: number;
  taken?: true;
}

interface Bucket<T extends Loose> {
  all: T[];
  next: number;
  byChannel: Map<string, { list: T[]; next: number }>;
}

export class TokenExtras<T extends Loose = Loose> {
  /** Entries looked at so far (taken or skipped): what the cursors cost. */
  steps = 0;
  private readonly buckets = new Map<string, Bucket<T>>();

  add(token: string, extra: T): void {
    let bucket = this.buckets.get(token);
    if (!bucket) this.buckets.set(token, (bucket = { all: [], next: 0, byChannel: new Map() }));
    bucket.all.push(extra);
    let own = bucket.byChannel.get(extra.channelKey);
    if (!own) bucket.byChannel.set(extra.channelKey, (own = { list: [], next: 0 }));
    own.list.push(extra);
  }

  get size(): number {
    return this.buckets.size;
  }

  /** The first extra of the token left in `channelKey`, else the first left anywhere (in the order added); taken. */
  take(token: string, channelKey: string): T | undefined {
    const bucket = this.buckets.get(token);
    if (!bucket) return undefined;
    const own = bucket.byChannel.get(channelKey);
    return (own && this.first(own)) ?? this.first(bucket);
  }

  private first(cursor: { next: number } & ({ all: T[] } | { list: T[] })): T | undefined {
    const list = 'all' in cursor ? cursor.all : cursor.list;
    while (cursor.next < list.length) {
      this.steps++;
      const extra = list[cursor.next++]!;
      if (extra.taken) continue;
      extra.taken = true;
      return extra;
    }
    return undefined;
  }
}
