/** Bits a key takes in a filter made for its capacity: about 1 false "maybe" in 50 when full. */
const BLOOM_BITS_PER_KEY = 8;
const BLOOM_PROBES = 6;
const BLOCK_BITS = 512;

/**
 * The probe step, from `lo`'s high half: the bits of `hi` may all be choosing the block (up to 2^32 blocks),
 * and bits shared with the block's choice would make the keys of a block probe alike.
 */
const stepOf = (lo: number) => ((lo >>> 16) | 1) >>> 0;

/**
 * A blocked Bloom filter over (hi, lo) fingerprints, which are already uniform hashes: `hi` picks one 512-bit
 * block (one cache line), `lo` picks 6 bits in it. One memory access per key instead of one per probe; at
 * 8 bits a key about 1 false "maybe" in 50 when full.
 */
export class Bloom {
  private readonly words: Uint32Array;
  private readonly blocks: number;

  constructor(readonly capacity: number) {
    this.blocks = Bloom.blocksFor(capacity);
    this.words = new Uint32Array(this.blocks * (BLOCK_BITS / 32));
  }

  static bytesFor(capacity: number): number {
    return Bloom.blocksFor(capacity) * (BLOCK_BITS / 8);
  }

  /** The most keys a filter of at most `bytes` is made for (0 when not even a block fits). */
  static capacityWithin(bytes: number): number {
    return Math.floor(Math.max(0, bytes) / (BLOCK_BITS / 8)) * (BLOCK_BITS / BLOOM_BITS_PER_KEY);
  }

  private static blocksFor(capacity: number): number {
    return Math.max(1, Math.ceil((capacity * BLOOM_BITS_PER_KEY) / BLOCK_BITS));
  }

  get bytes(): number {
    return this.words.byteLength;
  }

  add(hi: number, lo: number): void {
    const base = ((hi >>> 0) % this.blocks) * (BLOCK_BITS / 32);
    const step = stepOf(lo);
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h & (BLOCK_BITS - 1);
      this.words[base + (bit >>> 5)]! |= 1 << (bit & 31);
    }
  }

  mayHave(hi: number, lo: number): boolean {
    const base = ((hi >>> 0) % this.blocks) * (BLOCK_BITS / 32);
    const step = stepOf(lo);
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h & (BLOCK_BITS - 1);
      if ((this.words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}
