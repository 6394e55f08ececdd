/**
 * Epoch microseconds (bigint) → epoch milliseconds, floored. BigInt division truncates toward zero, so
 * before 1970 a plain `micros / 1000n` moves an instant with sub-millisecond digits into the next
 * millisecond (and one just before a UTC midnight into the next day).
 */
export function floorMicrosToMillis(micros: bigint): bigint {
  const ms = micros / 1000n;
  return micros < 0n && ms * 1000n !== micros ? ms - 1n : ms;
}
