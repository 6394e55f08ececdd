import type { ScannedMessage } from './message-upload-scan.js';

/**
 * The idempotency keys of one scanned messages file so far: whether a message's key came earlier in the
 * file. An open-addressing set over typed arrays, sized for the whole file and keyed by the hash the
 * scanner worked out (a Map of numbers cost about a quarter of a microsecond an insert); keys whose hashes
 * agree sit in different slots and are told apart by their bytes.
 */
export class FileKeys {
  /** Slot → the message's index in the file + 1 (0: empty), and its key's hash beside it. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly messages: readonly ScannedMessage[],
  ) {
    let size = 16;
    while (size < messages.length * 2) size *= 2; // at most half full
    this.slots = new Int32Array(size * 2);
    this.mask = size - 1;
  }

  /** Whether message `index`'s key (it has one) came earlier in the file; it is remembered if not. */
  seen(index: number): boolean {
    const m = this.messages[index]!;
    const hash = m.keyHash;
    const slots = this.slots;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const held = slots[2 * slot]!;
      if (held === 0) {
        slots[2 * slot] = index + 1;
        slots[2 * slot + 1] = hash;
        return false;
      }
      if (slots[2 * slot + 1] === hash && this.sameKey(this.messages[held - 1]!, m)) return true;
    }
  }

  private sameKey(a: ScannedMessage, b: ScannedMessage): boolean {
    return this.bytes.compare(this.bytes, a.keyStart, a.keyEnd, b.keyStart, b.keyEnd) === 0;
  }
}
