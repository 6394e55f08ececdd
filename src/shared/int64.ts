/**
 * Platform ids are int64 (management-api.md §2), but a JavaScript number is exact only up to 2^53. An
 * Int64 is a number while it is a safe integer and a bigint beyond: one canonical form per value, so `===`,
 * Map keys and Sets work on ids, and the common case (ids far below 2^53) stays a plain, fast number.
 * Parse and write wire JSON with src/shared/lossless-json.ts so the digits survive both ways.
 */
export type Int64 = number | bigint;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const INT64_TEXT = /^-?(?:0|[1-9]\d{0,18})$/;

/** The canonical Int64 of an integer: a number when it is safe, else a bigint. */
export function int64(value: bigint | number): Int64 {
  if (typeof value === 'number') return value;
  return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value;
}

/** True for a safe integer number or a bigint within the int64 range. */
export function isInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** Decimal text (as in a URL path, a cache file or CSV) → Int64; undefined when not an int64's digits. */
export function parseInt64(text: string): Int64 | undefined {
  if (!INT64_TEXT.test(text)) return undefined;
  if (text.length < 16) return Number(text);
  const big = BigInt(text);
  return big >= INT64_MIN && big <= INT64_MAX ? int64(big) : undefined;
}

/** `id mod m` for a positive m, exact whatever the id's size (lanes, shards). */
export function int64Mod(id: Int64, m: number): number {
  if (typeof id === 'number') return ((id % m) + m) % m;
  const r = Number(id % BigInt(m));
  return r < 0 ? r + m : r;
}

/** `a + b`, exact; the result is canonical (number when safe). */
export function addInt64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return int64(BigInt(a) + BigInt(b));
}

/** Ascending order of ids of any size. */
export function compareInt64(a: Int64, b: Int64): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
