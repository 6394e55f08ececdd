/**
 * Numbers JSON.parse cannot keep: `1e400` becomes Infinity (and then `null` in the item sent), `1e-400`
 * and a fraction of 400 digits become 0. Such a record is refused by name instead of being sent altered.
 * Integers beyond 2^53 are not among them: lossless-json.ts keeps their digits.
 */
import { arrivesAs, DOUBLE_RANGE, lostInDouble } from '../double-range.js';
import { stringEnd } from './json-text.js';

/** A cheap look: an exponent of three digits or more, or a run of 300 digits, is where such a number can be. */
const MAY_HOLD_EXTREME = /\d[eE][+-]?\d{3}|\d{300}/;

/** The first number token of a JSON text (outside its strings) that a double cannot hold; undefined when none. */
export function extremeNumberIn(text: string): { token: string; at: number; becomes: 'Infinity' | '0' } | undefined {
  if (!MAY_HOLD_EXTREME.test(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = stringEnd(text, i);
    else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const end = numberEnd(text, i);
      const token = text.slice(i, end);
      const lost = lostInDouble(token, Number(token));
      // An integer token is kept exactly by lossless-json.ts, however long.
      if (lost === '0' || (lost === 'Infinity' && /[.eE]/.test(token))) return { token, at: i + 1, becomes: lost };
      i = end - 1;
    }
  }
  return undefined;
}

/** The reason a record with such a number is refused. */
export function extremeNumberMessage(found: { token: string; at: number; becomes: 'Infinity' | '0' }): string {
  return `the number ${shownNumber(found.token)} at character ${found.at} is beyond what a JSON number holds here (a double, ${DOUBLE_RANGE}): it would arrive as ${arrivesAs(found.becomes)}; write it as text (in quotes) to keep it`;
}

/** A number token as a reason shows it: a long one by its ends. */
export function shownNumber(token: string): string {
  return token.length > 40 ? `${token.slice(0, 20)}…${token.slice(-10)}` : token;
}

function numberEnd(text: string, start: number): number {
  let i = start;
  for (let c = text.charCodeAt(i); (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45; c = text.charCodeAt(++i));
  return i;
}
