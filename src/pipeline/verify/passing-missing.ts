import { grownTo } from '../../shared/typed-arrays.js';

/** Channels take the low 21 bits of an entry, ordinals the 32 above: an entry is an exact float64. */
const CHANNEL_SPAN = 2 ** 21;

/**
 * Missing messages to be named as the source's second read passes them (source-messages.ts StreamedOrdinals):
 * each one's ordinal and channel packed in one float64, 8 bytes a message, instead of its source record
 * held until every difference is named. A platform that lost a million messages held a million records (about
 * 1.3 KB of heap each with their differences) and ran verify out of memory past two or three million.
 */
export class PassingMissing {
  private entries = new Float64Array(1024);
  private count = 0;
  private readonly channelIds = new Map<string, number>();
  private readonly channels: string[] = [];

  get size(): number {
    return this.count;
  }

  add(ordinal: number, channelKey: string): void {
    let id = this.channelIds.get(channelKey);
    if (id === undefined) {
      id = this.channels.length;
      if (id >= CHANNEL_SPAN) throw new Error(`missing messages in more than ${CHANNEL_SPAN} channels`);
      this.channelIds.set(channelKey, id);
      this.channels.push(channelKey);
    }
    if (this.count === this.entries.length) this.entries = grownTo(this.entries, this.entries.length * 2);
    this.entries[this.count++] = ordinal * CHANNEL_SPAN + id;
  }

  /** By ordinal: the ordinals (for the read), and the channel of the one at each index. */
  sorted(): { ordinals: Uint32Array; channelKeyAt: (at: number) => string } {
    const entries = this.entries.subarray(0, this.count).sort();
    const ordinals = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) ordinals[i] = Math.floor(entries[i]! / CHANNEL_SPAN);
    return { ordinals, channelKeyAt: (at) => this.channels[entries[at]! % CHANNEL_SPAN]! };
  }
}
