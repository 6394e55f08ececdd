import type { RecordPosition } from './types.js';

const NO_LINE = 0x7fffffff;

/**
 * A record's position (file, line, index) from its ordinal in the stage, without keeping a position per
 * record. Within a file, index and line mostly grow with the ordinal; only where that stops (a new file, a
 * blank line, a CSV field spanning lines) is a change point kept: 16 bytes each, in one Int32Array. A
 * typical file costs one change point; the worst case (every record spanning lines) one per record.
 * Ordinals must be noted in increasing order.
 */
export class PositionIndex {
  private readonly files: string[] = [];
  private points = new Int32Array(4 * 64);
  private count = 0;
  private lastFile: string | undefined;

  /** Bytes the index holds now. */
  get bytes(): number {
    return this.points.byteLength;
  }

  note(ordinal: number, position: RecordPosition): void {
    const indexBase = position.index - ordinal;
    const lineBase = position.line === undefined ? NO_LINE : position.line - ordinal;
    if (this.count > 0 && position.file === this.lastFile) {
      const at = (this.count - 1) * 4;
      if (this.points[at + 2] === indexBase && this.points[at + 3] === lineBase) return;
    }
    if (position.file !== this.lastFile) {
      this.files.push(position.file);
      this.lastFile = position.file;
    }
    if ((this.count + 1) * 4 > this.points.length) {
      const bigger = new Int32Array(this.points.length * 2);
      bigger.set(this.points);
      this.points = bigger;
    }
    const at = this.count * 4;
    this.points[at] = ordinal;
    this.points[at + 1] = this.files.length - 1;
    this.points[at + 2] = indexBase;
    this.points[at + 3] = lineBase;
    this.count++;
  }

  /** The position of a noted ordinal. */
  at(ordinal: number): RecordPosition {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.points[mid * 4]! <= ordinal) lo = mid;
      else hi = mid - 1;
    }
    const at = lo * 4;
    if (this.count === 0 || this.points[at]! > ordinal) throw new RangeError(`no position noted for record ${ordinal}`);
    const position: RecordPosition = { file: this.files[this.points[at + 1]!]!, index: ordinal + this.points[at + 2]! };
    const lineBase = this.points[at + 3]!;
    if (lineBase !== NO_LINE) position.line = ordinal + lineBase;
    return position;
  }
}

/** `file:line`, or `file record N` (0-based, as rejects count) where the format has no lines (JSON arrays). */
export function describePosition(p: RecordPosition): string {
  return p.line !== undefined ? `${p.file}:${p.line}` : `${p.file} record ${p.index}`;
}
