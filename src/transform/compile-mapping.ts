import { MappingError } from './compile-mapping-error.js';
import { BAD, COERCERS } from './coerce.js';
import { compileWhen, type ConditionTest } from './conditions.js';
import { isConstRule, isFieldRule, isTemplateRule } from './mapping-spec.js';
import type { FieldRef, FieldRule, MappingValue, NestedMapping, TemplateRule, ValueType, When } from './mapping-spec.js';
import { RULE_HELPERS, createUniqueNames, type UserNameLookup } from './mapping-rules.js';
import { parseTemplate, type TemplatePart } from './template.js';
import { describeFound, reason, type Reason } from './types.js';

export { MappingError };

/** A mapping turned into one JavaScript function. */
export interface CompiledMapping {
  /**
   * Builds the import item from one source record. Values that cannot be coerced are left out of the item
   * and their reasons pushed to `reasons` (the caller rejects the record when any were pushed). `sourceKey`
   * is the record's key: a `unique` name stays with its key (a record seen again keeps its name).
   */
  map(record: Record<string, unknown>, reasons: Reason[], sourceKey?: string): Record<string, unknown>;
  /** The generated source, for tests and debugging. */
  code: string;
  /** Every source field the mapping reads, with the mapping path that reads it (`properties.dept`), in mapping order. */
  sourceFields: MappedSourceField[];
  /** Whether some entry has `ref: user` (the stage then needs CompileMappingOptions.userNames). */
  usesUserRefs: boolean;
}

/** A source field a mapping reads, and where in the mapping (`displayName`, `properties.dept`). */
export interface MappedSourceField {
  path: string;
  field: FieldRef;
}

export interface CompileMappingOptions {
  /**
   * Coercions applied when the mapping names none, by item path (`isGuest: boolean`), because the import
   * schema allows only that type there. Default none.
   */
  impliedTypes?: Readonly<Record<string, ValueType>>;
  /** Resolves `ref: user` values (a users-stage source key → the user's platform name). */
  userNames?: UserNameLookup;
}


/** Text of a value inside a template (never an object or a list: templateValueProblem rejected those). */
function templateText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return String(value);
}

/**
 * A template's text where a missing field between two spaces leaves one (`{first} {middle} {last}` without a
 * middle name is "Ann Lee", not "Ann  Lee"): text after a missing field loses its leading spaces when the
 * text before it ends in spaces. Only for templates closesGaps picks; the others concatenate.
 */
function joinTemplate(pieces: readonly unknown[], isField: readonly boolean[]): string {
  let out = '';
  let gap = false;
  for (let i = 0; i < pieces.length; i++) {
    if (isField[i]) {
      const text = templateText(pieces[i]);
      if (text === '') gap = gap || /\s$/.test(out);
      else gap = false;
      out += text;
    } else {
      const text = pieces[i] as string;
      out += gap ? text.trimStart() : text;
      gap = false;
    }
  }
  return out;
}

/** Whether a field of the template stands between spaces: a missing value there would leave two (at either end, the trim removes them). */
function closesGaps(parts: readonly TemplatePart[]): boolean {
  return parts.some((p, i) => 'field' in p && /^\s/.test(textOf(parts[i + 1])) && /\s$/.test(textOf(parts[i - 1])));
}

const textOf = (part: TemplatePart | undefined): string => (part !== undefined && 'text' in part ? part.text : '');

/**
 * 1 (and a reason) for a template's value that is an object or a list: its JSON text in a name or a display
 * name is not what the template meant. 0 otherwise, so the calls for a template's fields add up.
 */
function templateValueProblem(value: unknown, reasons: Reason[], field: string, source: string): number {
  if (typeof value !== 'object' || value === null) return 0;
  reasons.push(reason(field, 'text or a number (a template writes text)', value, source));
  return 1;
}

/**
 * Splits text into trimmed, non-empty items; arrays (from JSON sources) pass as they are. An object has
 * no text to split (it would become "[object Object]"): a reason, BAD.
 */
function splitText(value: unknown, separator: string, reasons: Reason[], field: string, source: string): unknown {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') {
    reasons.push(reason(field, `text to split at ${JSON.stringify(separator)}, or a list`, value, source));
    return BAD;
  }
  const out: string[] = [];
  for (const part of String(value).split(separator)) {
    const item = part.trim();
    if (item !== '') out.push(item);
  }
  return out;
}

/** Coerces every item of an array; BAD when any item fails (each failure has its reason). */
function coerceEach(values: unknown[], type: ValueType, reasons: Reason[], field: string, source: string | undefined): unknown {
  const coerce = COERCERS[type];
  const out = new Array<unknown>(values.length);
  let failed = false;
  for (let i = 0; i < values.length; i++) {
    const v = coerce(values[i], reasons, `${field}.${i}`, source);
    if (v === BAD) failed = true;
    out[i] = v;
  }
  return failed ? BAD : out;
}

/** Combinations of a field rule's options that cannot mean anything. */
function checkFieldRule(rule: FieldRule, path: string): void {
  if (rule.map !== undefined && rule.type !== undefined) throw new MappingError(`${path}: "map" gives values as written; remove "type" (or map to values of that type)`, `${path}.map`);
  if (rule.map !== undefined && rule.split !== undefined) throw new MappingError(`${path}: "map" and "split" cannot be combined`, `${path}.map`);
  if (rule.unique !== undefined && (rule.split !== undefined || rule.ref !== undefined)) throw new MappingError(`${path}: "unique" applies to a single name, not to a list or a reference`, `${path}.unique`);
  if (rule.unique !== undefined && path !== 'name') throw new MappingError(`${path}: "unique" applies to the \`name\` of users and channels`, `${path}.unique`);
}

/**
 * A default of a typed field, coerced once when the mapping compiles: every record then carries the same
 * type in that field (`default: "5"` of an integer field is 5), and a default the type cannot take
 * (`yesterday` for a date) stops the pipeline at load instead of reaching the platform on some records.
 * With `split`, the default is a list (its items of the type).
 */
function typedDefault(value: unknown, type: ValueType | undefined, split: boolean, path: string): unknown {
  if (value === undefined) return undefined;
  const reasons: Reason[] = [];
  if (split && !Array.isArray(value)) throw new MappingError(`${path}.default: a field with "split" gives a list, so its default is a list (e.g. [] or [a, b]), found ${describeFound(value)}`, `${path}.default`);
  if (type === undefined) return value;
  const coerced = split ? coerceEach(value as unknown[], type, reasons, 'default', undefined) : COERCERS[type](value, reasons, 'default', undefined);
  if (coerced === BAD) throw new MappingError(`${path}.default: expected ${reasons[0]!.expected} (the field's type is ${type}), found ${reasons[0]!.found}`, `${path}.default`);
  return coerced;
}

/** A value map's entries by key without its surrounding spaces, as values are looked up (comparedText). */
function mapTable(map: Record<string, unknown>, path: string): Map<string, unknown> {
  const table = new Map<string, unknown>();
  for (const [key, value] of Object.entries(map)) {
    const text = key.trim();
    if (table.has(text)) throw new MappingError(`${path}.map: the keys ${JSON.stringify(text)} and ${JSON.stringify(key)} are the same key (spaces around a value are ignored)`, `${path}.map`);
    table.set(text, value);
  }
  return table;
}

const RUNTIME = { BAD, COERCERS, templateText, joinTemplate, templateValueProblem, splitText, coerceEach, ...RULE_HELPERS };

/**
 * Compiles a mapping ONCE into a function built with `new Function`: no interpretation of the mapping per
 * record, and every item gets its fields in the same order (the mapping's), which keeps output
 * deterministic and V8's object shapes stable. Constants and defaults are passed by reference from a table,
 * never printed into the code, so no value from a pipeline file is ever evaluated as code; names appear
 * only as JSON string literals.
 *
 * Missing means undefined, null or empty text: CSV cannot tell an empty field from an absent one.
 */
export function compileMapping(mapping: NestedMapping, options: CompileMappingOptions = {}): CompiledMapping {
  const constants: unknown[] = [];
  const conditions: ConditionTest[] = [];
  const sourceFields: MappedSourceField[] = [];
  let usesUserRefs = false;
  const implied = options.impliedTypes ?? {};
  let objects = 0;
  const lit = (s: string) => JSON.stringify(s);
  const constant = (value: unknown) => `K[${constants.push(value) - 1}]`;
  const access = (ref: FieldRef) =>
    typeof ref === 'string' ? `r[${lit(ref)}]` : `r${ref.map((k, i) => (i === 0 ? `[${lit(k)}]` : `?.[${lit(k)}]`)).join('')}`;
  const refName = (ref: FieldRef) => (typeof ref === 'string' ? ref : ref.join('.'));
  const missing = (v: string) => `(${v} === undefined || ${v} === null || ${v} === "")`;

  function coerceCall(type: ValueType | undefined, path: string, source: string | undefined): string {
    if (type === undefined) return '';
    return `if (v !== B) v = C[${lit(type)}](v, e, ${lit(path)}, ${source === undefined ? 'undefined' : lit(source)});\n`;
  }

  /**
   * A value kept as it is (untyped, `type: json`) outside properties: a big integer in it is its digits, as
   * before sources read it as a bigint (R.digitsOfBigIntegers); text, CSV's every value, passes untouched.
   */
  function textOutsideProperties(type: ValueType | undefined, path: string): string {
    if ((type !== undefined && type !== 'json') || path === 'properties' || path.startsWith('properties.')) return '';
    return `if (typeof v !== "string") v = R.digitsOfBigIntegers(v);\n`;
  }

  /** Wraps an entry's code in its `when:` test: when it does not hold, the entry has no value. */
  function guarded(when: When | undefined, path: string, code: string): string {
    if (when === undefined) return code;
    const test = compileWhen(when, `${path}.when`);
    for (const c of Array.isArray(when) ? when : [when]) sourceFields.push({ path: `${path}.when`, field: c.field });
    return `if (W[${conditions.push(test) - 1}](r)) {\n${code}} else v = undefined;\n`;
  }

  function fieldRule(rule: FieldRule, path: string): string {
    checkFieldRule(rule, path);
    const type = rule.map !== undefined ? undefined : (rule.type ?? (rule.split === undefined ? implied[path] : undefined));
    const source = refName(rule.field);
    const src = lit(source);
    sourceFields.push({ path, field: rule.field });
    const fallback = rule.map !== undefined ? rule.default : typedDefault(rule.default, type, rule.split !== undefined, path);
    let code = `v = ${access(rule.field)};\n`;
    if (rule.trim) code += `if (typeof v === "string") v = v.trim();\n`;
    if (rule.unicode) code += `if (typeof v === "string") v = v.normalize(${lit(rule.unicode)});\n`;
    if (rule.case) code += `if (typeof v === "string") v = v.${rule.case === 'lower' ? 'toLowerCase' : 'toUpperCase'}();\n`;
    if (rule.asName) code += `if (typeof v === "string") v = R.makeValidName(v, "");\nelse if (typeof v === "bigint") v = R.makeValidName(String(v), "");\n`;
    // A default of a reference is a users-stage key like the values it stands in for, never a name: taken as
    // written it would attach the record to whoever has that name, or to no one.
    const missingValue = fallback === undefined ? 'undefined' : rule.ref === 'user' ? `R.userRef(L, ${constant(fallback)}, e, ${lit(path)}, ${src}, true)` : constant(fallback);
    code += `if ${missing('v')} v = ${missingValue};\nelse {\n`;
    if (rule.split !== undefined) {
      code += `v = R.splitText(v, ${lit(rule.split)}, e, ${lit(path)}, ${src});\n`;
      if (type !== undefined) code += `if (v !== B) v = R.coerceEach(v, ${lit(type)}, e, ${lit(path)}, ${src});\n`;
    } else code += coerceCall(type, path, source);
    if (rule.map === undefined) code += textOutsideProperties(type, path);
    if (rule.map !== undefined) {
      const table = mapTable(rule.map, path);
      code += `v = R.mapValue(${constant(table)}, v, ${rule.default === undefined ? 'undefined' : constant(rule.default)}, e, ${lit(path)}, ${src});\n`;
    }
    if (rule.ref === 'user') {
      usesUserRefs = true;
      code += `if (v !== B) v = R.userRef(L, v, e, ${lit(path)}, ${src});\n`;
    }
    code += '}\n';
    // After the default too: records that all take `default: guest` get guest, guest-2, … (never one name twice).
    if (rule.unique !== undefined) code += `if (v !== undefined && v !== B) v = R.uniqueName(${constant(createUniqueNames(rule.unique))}, v, k, e, ${lit(path)}, ${src});\n`;
    return guarded(rule.when, path, code);
  }

  function templateRule(rule: TemplateRule, path: string): string {
    let parts;
    try {
      parts = parseTemplate(rule.template);
    } catch (error) {
      throw new MappingError(`template of ${path}: ${(error as Error).message}`, path);
    }
    const fields = parts.flatMap((p) => ('field' in p ? [p.field] : []));
    for (const field of fields) sourceFields.push({ path, field });
    const names = fields.map((_, i) => `t${i}`);
    let code = `{\n${fields.map((f, i) => `const ${names[i]} = ${access(f)};\n`).join('')}`;
    const allMissing = names.length === 0 ? 'false' : names.map(missing).join(' && ');
    let n = 0;
    const concat = closesGaps(parts)
      ? `R.joinTemplate([${parts.map((p) => ('field' in p ? names[n++] : lit(p.text))).join(', ')}], ${constant(parts.map((p) => 'field' in p))})`
      : parts.map((p) => ('field' in p ? `R.templateText(${names[n++]})` : lit(p.text))).join(' + ') || '""';
    const problems = fields.map((f, i) => `R.templateValueProblem(${names[i]}, e, ${lit(path)}, ${lit(f)})`).join(' + ') || '0';
    code += `if (${problems} > 0) v = B;\nelse if (${allMissing}) v = undefined; else v = (${concat}).trim();\n`;
    const type = rule.type ?? implied[path];
    const fallback = typedDefault(rule.default, type, false, path);
    code += `if (v === "" || v === undefined) v = ${fallback === undefined ? 'undefined' : constant(fallback)};\nelse {\n`;
    code += coerceCall(type, path, fields.length === 1 ? fields[0] : undefined);
    if (type === 'json') code += textOutsideProperties(type, path);
    return guarded(rule.when, path, `${code}}\n}\n`);
  }

  function nested(map: NestedMapping, target: string, prefix: string): string {
    let code = '';
    for (const [key, value] of Object.entries(map)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (key === '__proto__') throw new MappingError(`${path}: "__proto__" cannot be a field name`, path);
      code += entry(value, path);
      code += `if (v !== undefined && v !== B) ${target}[${lit(key)}] = v;\n`;
    }
    return code;
  }

  function entry(value: MappingValue, path: string): string {
    if (typeof value === 'string') return fieldRule({ field: value }, path);
    if (isFieldRule(value)) return fieldRule(value, path);
    if (isTemplateRule(value)) return templateRule(value, path);
    if (isConstRule(value)) return guarded(value.when, path, `v = ${constant(value.const)};\n`);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new MappingError(`${path}: expected a source field name, {field}, {template}, {const} or a nested mapping`, path);
    const name = `o${++objects}`;
    // A nested object none of whose fields has a value is left out (not sent as {}).
    return `{\nconst ${name} = {};\n${nested(value, name, path)}v = Object.keys(${name}).length === 0 ? undefined : ${name};\n}\n`;
  }

  const body = nested(mapping, 'o', '');
  const code = `"use strict";\nreturn function map(r, e, k) {\nlet v;\nconst o = {};\n${body}return o;\n};`;
  const factory = new Function('K', 'C', 'B', 'R', 'W', 'L', code) as (
    k: unknown[],
    c: typeof COERCERS,
    b: typeof BAD,
    r: typeof RUNTIME,
    w: ConditionTest[],
    l: UserNameLookup | undefined,
  ) => CompiledMapping['map'];
  return { map: factory(constants, COERCERS, BAD, RUNTIME, conditions, options.userNames), code, sourceFields, usesUserRefs };
}
