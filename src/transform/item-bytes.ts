/** What the scratch buffer starts at; it grows to fit the largest item met, up to KEPT_BYTES. */
const INITIAL_BYTES = 64 * 1024;

/** An item larger than this is encoded into a buffer of its own, so one huge item does not pin its size for good. */
const KEPT_BYTES = 1 << 20;

/** Items up to this many bytes get a kept view of the scratch buffer, one per length (at most about 300 KB of views). */
const VIEWED_BYTES = 2048;

/**
 * An accepted item's JSON encoded to UTF-8 once, into a reused buffer: the content fingerprint is taken
 * over these bytes and the chunk copies them, where each had encoded the string on its own (zlib's crc32
 * of a string encodes it first). The view of the bytes is kept per length: making a Buffer view per
 * record cost about as much as the encoding it saved.
 */
export class ItemEncoder {
  private scratch = Buffer.allocUnsafe(INITIAL_BYTES);
  private views: Buffer[] = [];

  /** The UTF-8 of `json`: a view of the scratch buffer, valid until the next call. */
  encode(json: string): Buffer {
    // At most 3 bytes per UTF-16 unit; the exact size is counted only when that bound would not fit.
    if (json.length * 3 > this.scratch.length) {
      const size = Buffer.byteLength(json);
      if (size > KEPT_BYTES) return Buffer.from(json);
      if (size > this.scratch.length) {
        this.scratch = Buffer.allocUnsafe(Math.min(Math.max(size, this.scratch.length * 2), KEPT_BYTES));
        this.views = [];
      }
    }
    const size = this.scratch.write(json, 0);
    if (size > VIEWED_BYTES) return this.scratch.subarray(0, size);
    return (this.views[size] ??= this.scratch.subarray(0, size));
  }
}
