import { endianness } from 'node:os';
import { grownTo } from '../../shared/typed-arrays.js';

/** Channels take the low 21 bits of a packed entry, ordinals the 32 above: an entry is an exact float64. */
const CHANNEL_SPAN = 2 ** 21;
/** Where a wide entry's 32-bit halves are in its Uint32Array view: the ordinal high (it sorts first), the channel low. */
const [LOW, HIGH] = endianness() === 'LE' ? [0, 1] : [1, 0];

/**
 * Missing messages to be named as the second read passes them (source-messages.ts StreamedOrdinals):
 * each one's ordinal and channel packed in one float64, 8 bytes a message, instead of its source record
 * held until every difference is named. A platform that lost a million messages held a million records (about
 * 1.3 KB of heap each with their differences) and ran verify out of memory past two or three million.
 * Past `channelSpan` channels the entries are widened to unsigned 64 bits (channel in the low 32): before,
 * missing messages in more than 2^21 channels stopped verify with exit 1.
 */
export class PassingMissing {
  private packed: Float64Array | undefined = new Float64Array(1024);
  private wide = new BigUint64Array(0);
  private halves = new Uint32Array(0);
  private count = 0;
  private readonly channelIds = new Map<string, number>();
  private readonly channels: string[] = [];

  /** `channelSpan`: channels a packed entry holds (tests shrink it). */
  constructor(private readonly channelSpan = CHANNEL_SPAN) {}

  get size(): number {
    return this.count;
  }

  add(ordinal: number, channelKey: string): void {
    let id = this.channelIds.get(channelKey);
    if (id === undefined) {
      id = this.channels.length;
      this.channelIds.set(channelKey, id);
      this.channels.push(channelKey);
      if (id >= this.channelSpan && this.packed) this.widen();
    }
    if (this.packed) {
      if (this.count === this.packed.length) this.packed = grownTo(this.packed, this.count * 2);
      this.packed[this.count++] = ordinal * this.channelSpan + id;
      return;
    }
    if (this.count === this.wide.length) this.growWide(this.count * 2);
    this.halves[2 * this.count + HIGH] = ordinal;
    this.halves[2 * this.count++ + LOW] = id;
  }

  /** By ordinal: the ordinals (for the read), and the channel of the one at each index. */
  sorted(): { ordinals: Uint32Array; channelKeyAt: (at: number) => string } {
    const ordinals = new Uint32Array(this.count);
    const packed = this.packed?.subarray(0, this.count).sort();
    if (packed) {
      for (let i = 0; i < this.count; i++) ordinals[i] = Math.floor(packed[i]! / this.channelSpan);
      return { ordinals, channelKeyAt: (at) => this.channels[packed[at]! % this.channelSpan]! };
    }
    this.wide.subarray(0, this.count).sort();
    const halves = this.halves;
    for (let i = 0; i < this.count; i++) ordinals[i] = halves[2 * i + HIGH]!;
    return { ordinals, channelKeyAt: (at) => this.channels[halves[2 * at + LOW]!]! };
  }

  private widen(): void {
    const packed = this.packed!;
    this.packed = undefined;
    this.growWide(packed.length);
    for (let i = 0; i < this.count; i++) {
      this.halves[2 * i + HIGH] = Math.floor(packed[i]! / this.channelSpan);
      this.halves[2 * i + LOW] = packed[i]! % this.channelSpan;
    }
  }

  private growWide(length: number): void {
    const grown = new BigUint64Array(length);
    grown.set(this.wide);
    this.wide = grown;
    this.halves = new Uint32Array(grown.buffer);
  }
}
