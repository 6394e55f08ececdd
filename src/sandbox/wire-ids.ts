import { addInt64, isInt64, type Int64 } from '../shared/int64.js';

/**
 * The ids the sandbox shows on the wire. The store numbers records 1, 2, 3…; with an id base (option
 * `idBase`, `chatport sandbox --id-base`) every id on the wire is base + that number, e.g. above 2^53, so a
 * client is tested against int64 ids a JavaScript number cannot hold. Translation happens at the HTTP edge
 * only (rendering, path ids, body ids); the store keeps plain numbers.
 */
export class WireIds {
  private readonly base: bigint;

  constructor(base: bigint = 0n) {
    if (base < 0n) throw new RangeError('the sandbox id base must be >= 0');
    this.base = base;
  }

  /** A store id as the wire shows it. */
  toWire(id: number): Int64 {
    return this.base === 0n ? id : addInt64(id, this.base);
  }

  /** A wire id → the store's id; undefined for an id this sandbox can never have given out. */
  toStore(wire: unknown): number | undefined {
    if (!isInt64(wire)) return undefined;
    if (this.base === 0n) return typeof wire === 'number' && wire > 0 ? wire : undefined;
    const id = BigInt(wire) - this.base;
    return id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : undefined;
  }
}
