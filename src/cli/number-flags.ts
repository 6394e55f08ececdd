import { InvalidArgumentError } from 'commander';

/** A commander parser for a flag taking a positive number (seconds, megabytes). */
export function positiveNumber(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive number, got "${value}"`);
    return n;
  };
}
