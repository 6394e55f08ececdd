/** A copy of `old` in a new array of the same kind and `length` elements (the rest zero): how columns grow. */
export function grownTo<T extends Uint32Array | Uint16Array | Uint8Array | Float64Array | BigInt64Array>(old: T, length: number): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  (next as Uint8Array).set(old as Uint8Array);
  return next;
}
