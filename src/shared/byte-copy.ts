/**
 * Copies of short byte runs (a message's body or properties, an idempotency key: 30 to 300 bytes) from
 * an upload into a store's own buffers. Buffer.copy makes a typed-array view for each call and a byte loop
 * takes a step a byte; four bytes a step through DataViews costs about half either (BENCHMARKS.md, "the
 * sandbox's share met"). Each copier keeps the views of the buffers it last copied from and into: a
 * store's copies come from one upload at a time and go into one chunk of its own at a time (so it keeps
 * the last upload alive until the next one).
 */
export class ByteCopier {
  private source: Uint8Array | undefined;
  private sourceView: DataView | undefined;
  private target: Uint8Array | undefined;
  private targetView: DataView | undefined;

  /** Copies from[start, end) into `into` at `at` (the caller has made room); returns the end. */
  copy(from: Uint8Array, start: number, end: number, into: Uint8Array, at: number): number {
    let i = start;
    if (end - start >= 16) {
      const source = this.viewOfSource(from);
      const target = this.viewOfTarget(into);
      for (; i + 4 <= end; i += 4, at += 4) target.setInt32(at, source.getInt32(i));
    }
    for (; i < end; i++) into[at++] = from[i]!;
    return at;
  }

  private viewOfSource(buffer: Uint8Array): DataView {
    if (buffer !== this.source || !this.sourceView) {
      this.source = buffer;
      this.sourceView = viewOf(buffer);
    }
    return this.sourceView;
  }

  private viewOfTarget(buffer: Uint8Array): DataView {
    if (buffer !== this.target || !this.targetView) {
      this.target = buffer;
      this.targetView = viewOf(buffer);
    }
    return this.targetView;
  }
}

function viewOf(buffer: Uint8Array): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
