/**
 * `new Date(ms).toISOString()` without a Date per call: a migration writes one or two ISO times per
 * message, and the Date plus its runtime call cost more than the rest of a message's timestamp work.
 * Times in years 1970–9999 are formatted here (the day part is cached, as a day file's messages share
 * their day); any other value, and anything not an integer, is left to Date, so the text is always
 * exactly what toISOString gives.
 */
import { civilFromDays } from './calendar.js';

const MS_PER_DAY = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from here on toISOString writes an expanded year (`+010000-…`). */
const YEAR_10000_MS = 253_402_300_800_000;

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let cachedDay = -1;
let cachedPrefix = '';

export function isoOfEpochMs(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= 0 && ms < YEAR_10000_MS)) return new Date(ms).toISOString();
  const day = Math.floor(ms / MS_PER_DAY);
  if (day !== cachedDay) {
    cachedPrefix = datePrefixOf(day);
    cachedDay = day;
  }
  let rest = ms - day * MS_PER_DAY;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${cachedPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}

/** `YYYY-MM-DDT` of a day counted from 1970-01-01. */
function datePrefixOf(day: number): string {
  const date = civilFromDays(day);
  return `${String(date.year).padStart(4, '0')}-${TWO_DIGITS[date.month]}-${TWO_DIGITS[date.day]}T`;
}
