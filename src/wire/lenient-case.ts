import { z } from 'zod';

/**
 * A plain object with a camelCase alias for each snake_case key that lacks one (`display_name` →
 * `displayName`); the original keys stay, so nothing the platform sent is lost. Newer platform revisions
 * answer in snake_case (decisions.md "Wire"), and chatport reads camelCase names. Keys starting with `_`
 * (HAL's `_links`, `_embedded`) are left alone. Only this object's own keys: nested resources have their
 * own schema, and `properties` (data users put there) is never renamed.
 */
/** A key that may get a camelCase alias: snake_case, not starting with `_`. */
export function mayGetAlias(key: string): boolean {
  return !key.startsWith('_') && key.includes('_');
}

export function withCamelCaseAliases(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    if (!mayGetAlias(key)) continue;
    const camel = key.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (camel === key || Object.hasOwn(source, camel)) continue;
    out ??= { ...source };
    out[camel] = source[key];
  }
  return out ?? value;
}

/** `z.looseObject(shape)` that also reads the snake_case spelling of each field. */
export function lenientObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.preprocess(withCamelCaseAliases, z.looseObject(shape));
}
