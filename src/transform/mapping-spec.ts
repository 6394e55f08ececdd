/**
 * The mapping language of pipeline files, as plain types. src/config validates a file against its zod
 * schema (which describes every form for people and editors) and hands these values to compileMapping.
 *
 * In a mapping, each key is a field of the import item; the value says where it comes from:
 * - `"username"`: the source field of that name (rename);
 * - `{ field, type?, split?, default?, trim? }`: a source field with coercion, splitting and a default;
 * - `{ template: "{first} {last}", type?, default? }`: text combining source fields;
 * - `{ const: value }`: the same value for every record;
 * - any other object: a nested object (e.g. `properties`), itself a mapping.
 */

/** Coercions from source text (CSV gives only text) to the types import items need. */
export const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'json'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** A source field, by name, or a path into nested JSON records (`["user", "name"]`). */
export type FieldRef = string | string[];

export interface FieldRule {
  field: FieldRef;
  /** Coerce the value; absent: taken as it is (CSV values stay text). */
  type?: ValueType;
  /** Split text at this separator into an array (items trimmed, empty ones dropped); `type` applies to each item. */
  split?: string;
  /** Used when the source value is missing, null or empty text. Taken as written, not coerced. */
  default?: unknown;
  /** Trim surrounding whitespace from text before anything else. Default false. */
  trim?: boolean;
}

export interface TemplateRule {
  /** `{name}` inserts a source field, `{{` and `}}` are literal braces. The result is trimmed. */
  template: string;
  type?: ValueType;
  default?: unknown;
}

export interface ConstRule {
  const: unknown;
}

export type MappingValue = string | FieldRule | TemplateRule | ConstRule | NestedMapping;

export interface NestedMapping {
  [target: string]: MappingValue;
}

/**
 * A rule that skips a record (counted as skipped): `field` and exactly one test. A record is skipped when
 * any rule matches. Comparisons are on text: `equals: 1` matches the CSV text "1" and the JSON number 1.
 */
export interface SkipRule {
  field: FieldRef;
  equals?: unknown;
  notEquals?: unknown;
  in?: unknown[];
  notIn?: unknown[];
  /** A regular expression (JavaScript syntax) the text must match. */
  matches?: string;
  /** true: the value is missing, null or empty text; false: it is present. */
  empty?: boolean;
}

export const RULE_KEYS = ['field', 'template', 'const'] as const;

export function isFieldRule(v: unknown): v is FieldRule {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'field' in v;
}
export function isTemplateRule(v: unknown): v is TemplateRule {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'template' in v;
}
export function isConstRule(v: unknown): v is ConstRule {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'const' in v;
}
