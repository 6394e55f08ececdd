import { ConfigError } from '../shared/errors.js';
import { BAD, COERCERS } from './coerce.js';
import { isConstRule, isFieldRule, isTemplateRule } from './mapping-spec.js';
import type { FieldRef, FieldRule, MappingValue, NestedMapping, TemplateRule, ValueType } from './mapping-spec.js';
import { parseTemplate } from './template.js';
import type { Reason } from './types.js';

/** A mapping turned into one JavaScript function. */
export interface CompiledMapping {
  /**
   * Builds the import item from one source record. Values that cannot be coerced are left out of the item
   * and their reasons pushed to `reasons` (the caller rejects the record when any were pushed).
   */
  map(record: Record<string, unknown>, reasons: Reason[]): Record<string, unknown>;
  /** The generated source, for tests and debugging. */
  code: string;
  /** Every source field the mapping reads, with the mapping path that reads it (`properties.dept`), in mapping order. */
  sourceFields: MappedSourceField[];
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
}

/** A mapping that cannot be compiled; `details.path` is the path inside the mapping (`properties.full`). */
export class MappingError extends ConfigError {
  constructor(message: string, path: string) {
    super(message, { path });
  }
}

/** Text of a value inside a template. */
function templateText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Splits text into trimmed, non-empty items; arrays (from JSON sources) pass as they are. */
function splitText(value: unknown, separator: string): unknown {
  if (Array.isArray(value)) return value;
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

const RUNTIME = { BAD, COERCERS, templateText, splitText, coerceEach };

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
  const sourceFields: MappedSourceField[] = [];
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

  function fieldRule(rule: FieldRule, path: string): string {
    const type = rule.type ?? (rule.split === undefined ? implied[path] : undefined);
    const source = refName(rule.field);
    sourceFields.push({ path, field: rule.field });
    let code = `v = ${access(rule.field)};\n`;
    if (rule.trim) code += `if (typeof v === "string") v = v.trim();\n`;
    code += `if ${missing('v')} v = ${rule.default === undefined ? 'undefined' : constant(rule.default)};\nelse {\n`;
    if (rule.split !== undefined) {
      code += `v = R.splitText(v, ${lit(rule.split)});\n`;
      if (type !== undefined) code += `v = R.coerceEach(v, ${lit(type)}, e, ${lit(path)}, ${lit(source)});\n`;
    } else code += coerceCall(type, path, source);
    return `${code}}\n`;
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
    const concat = parts.map((p) => ('field' in p ? `R.templateText(${names[n++]})` : lit(p.text))).join(' + ') || '""';
    code += `if (${allMissing}) v = undefined; else v = (${concat}).trim();\n`;
    code += `if (v === "" || v === undefined) v = ${rule.default === undefined ? 'undefined' : constant(rule.default)};\nelse {\n`;
    code += coerceCall(rule.type ?? implied[path], path, fields.length === 1 ? fields[0] : undefined);
    return `${code}}\n}\n`;
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
    if (isConstRule(value)) return `v = ${constant(value.const)};\n`;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new MappingError(`${path}: expected a source field name, {field}, {template}, {const} or a nested mapping`, path);
    const name = `o${++objects}`;
    // A nested object none of whose fields has a value is left out (not sent as {}).
    return `{\nconst ${name} = {};\n${nested(value, name, path)}v = Object.keys(${name}).length === 0 ? undefined : ${name};\n}\n`;
  }

  const body = nested(mapping, 'o', '');
  const code = `"use strict";\nreturn function map(r, e) {\nlet v;\nconst o = {};\n${body}return o;\n};`;
  const factory = new Function('K', 'C', 'B', 'R', code) as (
    k: unknown[],
    c: typeof COERCERS,
    b: typeof BAD,
    r: typeof RUNTIME,
  ) => CompiledMapping['map'];
  return { map: factory(constants, COERCERS, BAD, RUNTIME), code, sourceFields };
}
