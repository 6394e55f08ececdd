import type { z } from 'zod';
import { INT64_MAX, INT64_MIN } from '../shared/int64.js';
import { mayGetAlias } from './lenient-case.js';

/**
 * A fast yes for the responses read most (pages of messages: a migration's roots step and verification
 * read every message of a channel): a hand-written check that the schema would give the value back as it
 * is, so zod's copy of every object is skipped. It may say no to what the schema accepts (zod then
 * decides, with its errors and snake_case aliases), never yes to what the schema refuses or would change;
 * test/wire/fast-check.test.ts holds both to that over many generated bodies.
 *
 * One difference remains: zod puts a loose object's known keys first, while a fast yes keeps the order the
 * platform sent (the same keys and values; what prints a resource shows the platform's order).
 */
const checks = new WeakMap<z.ZodType, (value: unknown) => boolean>();

/** Gives `schema` a fast check (see above); returns the schema. */
export function withFastCheck<S extends z.ZodType>(schema: S, check: (value: unknown) => boolean): S {
  checks.set(schema, check);
  return schema;
}

/** The fast check given to `schema`, if any. */
export function fastCheckOf(schema: z.ZodType): ((value: unknown) => boolean) | undefined {
  return checks.get(schema);
}

/** schema.safeParse, except that a value the schema's fast check vouches for comes back as it is. */
export function safeParseFast<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.infer<S>> {
  const check = checks.get(schema);
  if (check !== undefined && check(value)) return { success: true, data: value as z.infer<S> };
  return schema.safeParse(value);
}

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object no camelCase alias would be added to (lenient-case.ts). */
export function hasNoSnakeKeys(value: Record<string, unknown>): boolean {
  for (const key in value) if (mayGetAlias(key)) return false;
  return true;
}

/** A z.record of anything that would come back unchanged (zod drops an own `__proto__` key). */
export function isPlainRecord(value: unknown): boolean {
  return isObject(value) && !Object.hasOwn(value, '__proto__');
}

export function isInt64(value: unknown): boolean {
  return typeof value === 'number' ? Number.isSafeInteger(value) : typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** Absent, or passing `check`. */
export const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
export const isOptionalString = (value: unknown): boolean => isOptional(value, isString);
export const isOptionalBoolean = (value: unknown): boolean => isOptional(value, isBoolean);
export const isOptionalSafeInteger = (value: unknown): boolean => isOptional(value, Number.isSafeInteger);
