/** A copy of `old` in a new array of the same kind and `length` elements (the rest zero): how columns grow. */
export function grownTo<T extends Uint32Array | Uint16Array | Uint8Array | Float64Array | BigInt64Array>(old: T, length: number): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  (next as Uint8Array).set(old as Uint8Array);
  return next;
}

/** Whole numbers below 2^32 gathered into a Uint32Array, 4 bytes each (a number[] takes 8, an object 40 or more). */
export class Uint32List {
  private items = new Uint32Array(16);
  private count = 0;

  push(value: number): void {
    if (this.count === this.items.length) this.items = grownTo(this.items, this.count * 2);
    this.items[this.count++] = value;
  }

  done(): Uint32Array {
    return this.items.slice(0, this.count);
  }
}
