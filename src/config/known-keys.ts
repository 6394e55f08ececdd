import type { z } from 'zod';

/**
 * The field names a schema allows at a path of the file (every branch of a union), to suggest the one an
 * unknown field most likely meant (`chunkRecord` → `chunkRecords`). Reads zod's schema definitions, so it
 * knows exactly the fields the check itself took.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  collect(schema, path, keys, 0);
  return [...keys];
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Depth-bounded: a recursive (lazy) schema cannot loop. */
function collect(schema: z.ZodType, path: readonly PropertyKey[], keys: Set<string>, depth: number): void {
  if (depth > 64) return;
  const def = defOf(schema);
  const next = (s: z.ZodType | undefined, rest = path) => s && collect(s, rest, keys, depth + 1);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return next(def.innerType);
    case 'pipe':
      next(def.in);
      return next(def.out);
    case 'lazy':
      return next(def.getter?.());
    case 'union':
      for (const option of def.options ?? []) next(option);
      return;
    case 'intersection':
      next(def.left);
      return next(def.right);
    case 'object':
      if (path.length === 0) for (const key of Object.keys(def.shape ?? {})) keys.add(key);
      else next(def.shape?.[String(path[0])], path.slice(1));
      return;
    case 'record':
      if (path.length > 0) next(def.valueType, path.slice(1));
      return;
    case 'array':
      if (path.length > 0) next(def.element, path.slice(1));
      return;
    default:
      return;
  }
}
