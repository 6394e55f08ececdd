/**
 * Key-table entries in fingerprint order, for a spill of SpillingKeyTable (spilling-key-table.ts): entries
 * are 4 words (key hi, key lo, content, ordinal; ordinal 0 = an empty slot), compared as unsigned 64-bit
 * fingerprints, high word first.
 */

/** Words an entry takes. */
export const ENTRY_WORDS = 4;

/** -1, 0 or 1 as fingerprint (hiA, loA) sorts before, with or after (hiB, loB). */
export function compare(hiA: number, loA: number, hiB: number, loB: number): number {
  return hiA !== hiB ? (hiA < hiB ? -1 : 1) : loA === loB ? 0 : loA < loB ? -1 : 1;
}

const BUCKET_BITS = 16;
/** The counting sort's buckets (256 KiB), made at the first spill and kept for the next ones. */
let bucketCounts: Uint32Array | undefined;

/**
 * The numbers of the used entries of `words` (4 words each; unused ones have ordinal 0) in (hi, lo) order,
 * into `order`; returns how many. A counting sort by hi's top 16 bits (fingerprints are uniform hashes, so
 * buckets hold a few entries each), then each bucket sorted by insertion, or by Array.sort if it is large.
 */
export function orderByFingerprint(words: Uint32Array, order: Uint32Array): number {
  const slots = words.length / ENTRY_WORDS;
  const counts = (bucketCounts ??= new Uint32Array((1 << BUCKET_BITS) + 1));
  counts.fill(0);
  let count = 0;
  for (let s = 0; s < slots; s++)
    if (words[s * ENTRY_WORDS + 3] !== 0) {
      counts[(words[s * ENTRY_WORDS]! >>> (32 - BUCKET_BITS)) + 1]!++;
      count++;
    }
  if (count > order.length) throw new RangeError(`${count} entries do not fit in an order of ${order.length}`);
  for (let b = 1; b < counts.length; b++) counts[b]! += counts[b - 1]!;
  for (let s = 0; s < slots; s++) if (words[s * ENTRY_WORDS + 3] !== 0) order[counts[words[s * ENTRY_WORDS]! >>> (32 - BUCKET_BITS)]!++] = s;
  // counts[b] is now where bucket b ends.
  let start = 0;
  for (let b = 0; b < 1 << BUCKET_BITS; b++) {
    const end = counts[b]!;
    if (end - start > 1) sortBucket(words, order, start, end);
    start = end;
  }
  return count;
}

function sortBucket(words: Uint32Array, order: Uint32Array, start: number, end: number): void {
  const before = (x: number, y: number) => compare(words[x * ENTRY_WORDS]!, words[x * ENTRY_WORDS + 1]!, words[y * ENTRY_WORDS]!, words[y * ENTRY_WORDS + 1]!);
  if (end - start > 32) {
    order.set(Array.from(order.subarray(start, end)).sort(before), start);
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const entry = order[i]!;
    let j = i - 1;
    while (j >= start && before(order[j]!, entry) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = entry;
  }
}
