/** UTC days of epoch times: the partition (`dt=YYYY-MM-DD`) an instant belongs to. Pure. */
import { floorMicrosToMillis } from '../../shared/epoch-micros.js';

export const DAY_MS = 86_400_000;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A typed timestamp (epoch microseconds) → its UTC day, `YYYY-MM-DD` (floored, so before 1970 too). */
export function dayOfMicros(micros: bigint): string {
  return utcDay(Number(floorMicrosToMillis(micros)));
}
