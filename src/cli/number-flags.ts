import { InvalidArgumentError } from 'commander';

/** Digits with an optional fraction: what a person writes for seconds or megabytes (not 0x10, 1e3 or Infinity). */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A commander parser for a flag taking a positive number of `unit` (seconds, megabytes); fractions are
 * meant (`--job-timeout 0.3`). Forms Number() also reads (`0x10`, `1e3`, ` 5`) are refused: a message
 * naming the value would show another number than the one typed.
 */
export function positiveNumber(what: string, unit = 'seconds') {
  return (value: string): number => {
    const n = DECIMAL.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive number of ${unit}, written with digits (e.g. 30 or 0.5), got "${value}"`);
    return n;
  };
}
