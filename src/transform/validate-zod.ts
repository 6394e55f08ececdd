import type { z } from 'zod';
import { IMPORT_ITEM_SCHEMAS } from '../wire/imports.js';
import { describeFound } from './types.js';
import type { Reason, StageKind } from './types.js';
import type { ItemValidator } from './validate-fast.js';

function valueAt(item: unknown, path: readonly PropertyKey[]): unknown {
  let v = item;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected;
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      return `at least ${String(issue.minimum)}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

/**
 * The reference validator: the zod schemas of src/wire/imports.ts, with issues turned into reasons (one
 * reason per unknown key, like the fast validator). Slow per item; used to check the fast validators and
 * available for debugging.
 */
export function zodValidator(kind: StageKind): ItemValidator {
  const schema = IMPORT_ITEM_SCHEMAS[kind];
  return (item) => {
    const result = schema.safeParse(item);
    if (result.success) return undefined;
    const out: Reason[] = [];
    for (const issue of result.error.issues) {
      const base = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const field = base === '' ? key : `${base}.${key}`;
          out.push({ field, expected: 'no such field', found: 'a field the import does not carry', message: `${field}: ${issue.message}` });
        }
        continue;
      }
      const found = describeFound(valueAt(item, issue.path));
      out.push({ field: base, expected: expectedOf(issue), found, message: `${base || 'the record'}: ${issue.message}` });
    }
    return out;
  };
}
