/**
 * The mapping language of pipeline files, as plain types. src/config validates a file against its zod
 * schema (which describes every form for people and editors) and hands these values to compileMapping.
 *
 * In a mapping, each key is a field of the import item; the value says where it comes from:
 * - `"username"`: the source field of that name (rename);
 * - `{ field, type?, split?, default?, trim?, unicode?, case?, asName?, map?, unique?, ref? }`: a source
 *   field with normalisation, a value map, coercion, splitting, a default, a unique-name policy and user
 *   references;
 * - `{ template: "{first} {last}", type?, default? }`: text combining source fields;
 * - `{ const: value }`: the same value for every record;
 * - any other object: a nested object (e.g. `properties`), itself a mapping.
 * Field, template and const rules take `when:` (a condition, or a list that must all hold): when it does not
 * hold, the entry has no value for that record (as if the source field were missing; no default applies).
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
  /** Unicode normalisation form applied to text (after trim). */
  unicode?: UnicodeForm;
  /** Case folding applied to text (after unicode). */
  case?: 'lower' | 'upper';
  /** Make text a name the platform accepts (names.ts: NFC, lower case, letters/digits/._-, length). */
  asName?: boolean;
  /**
   * Source value (as text) → the value to use, taken as written. A present value with no entry takes
   * `default`; without one the record is rejected, naming the value and the keys the map has.
   */
  map?: Record<string, unknown>;
  /**
   * Users' and channels' `name`: two records of the stage with different keys must not get the same name
   * (compared without case). "suffix": the later one becomes `name-2`, `name-3`…; "reject": it is rejected.
   */
  unique?: UniquePolicy;
  /** "user": the value is the source key of a record of the users stage; it becomes that user's platform name. */
  ref?: 'user';
  when?: When;
}

export const UNICODE_FORMS = ['NFC', 'NFD', 'NFKC', 'NFKD'] as const;
export type UnicodeForm = (typeof UNICODE_FORMS)[number];
export const UNIQUE_POLICIES = ['suffix', 'reject'] as const;
export type UniquePolicy = (typeof UNIQUE_POLICIES)[number];

export interface TemplateRule {
  /** `{name}` inserts a source field, `{{` and `}}` are literal braces. The result is trimmed. */
  template: string;
  type?: ValueType;
  default?: unknown;
  when?: When;
}

export interface ConstRule {
  const: unknown;
  when?: When;
}

export type MappingValue = string | FieldRule | TemplateRule | ConstRule | NestedMapping;

export interface NestedMapping {
  [target: string]: MappingValue;
}

/**
 * A test on one source field: `field` and exactly one test. Comparisons are on text: `equals: 1` matches
 * the CSV text "1" and the JSON number 1. Used by skip rules and by `when:`.
 */
export interface Condition {
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

/** A record is skipped (counted as skipped) when any of the stage's skip rules holds. */
export type SkipRule = Condition;

/** One condition, or several that must all hold. */
export type When = Condition | Condition[];

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
