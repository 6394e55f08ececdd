/**
 * Number texts a double cannot hold: beyond ±1.8e308 they become Infinity (JSON writes it as null), a non-zero
 * text below 5e-324 becomes 0. The JSON formats (json-checks/number-range.ts) and `type: number`
 * (src/transform/coerce.ts) refuse them by the same rule instead of sending a value the source does not hold,
 * and the sandbox fails an import item holding one (src/sandbox/import-validate.ts).
 */

/** A text whose digits are all zero (any exponent): 0 is its exact value. */
const ZERO_MANTISSA = /^[+-]?[0.]*(?:[eE].*)?$/;

/** The range of a double, as reasons name it. */
export const DOUBLE_RANGE = '±1.8e308 down to 5e-324';

/**
 * How a number text is lost in the double `value` read from it: 'Infinity' beyond the range, '0' for a
 * non-zero text below it; undefined when kept (to the nearest double, as for any float).
 */
export function lostInDouble(token: string, value: number): 'Infinity' | '0' | undefined {
  if (!Number.isFinite(value)) return 'Infinity';
  return value === 0 && !ZERO_MANTISSA.test(token) ? '0' : undefined;
}

/** What such a number arrives as in the JSON sent (JSON writes Infinity as null). */
export function arrivesAs(lost: 'Infinity' | '0'): string {
  return lost === 'Infinity' ? 'null' : '0';
}
