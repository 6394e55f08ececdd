import { MappingError } from './compile-mapping-error.js';
import { stringifyJson } from '../shared/lossless-json.js';
import type { Condition } from './mapping-spec.js';
import { fieldRefName, valueAt } from './source-fields.js';
import { isBlank } from './idempotency.js';
import { wholeNumberText } from './whole-number-text.js';

/**
 * Tests on one source field's value, shared by skip rules (`skip:`) and conditional mapping entries
 * (`when:`). Comparisons are on text, so YAML's `equals: 1` matches CSV's "1" as well as JSON's 1.
 */
export type ConditionTest = (record: Record<string, unknown>) => boolean;

export const CONDITION_OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'matches', 'empty'] as const;

/** Missing, null, or text of spaces only (a spreadsheet cell that shows nothing). */
const isMissing = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && isBlank(v));

/** A value as text, as a key or a property is matched: text as it is, a number (a bigint too) as its digits, a list or an object as its JSON. */
export const conditionText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' ? stringifyJson(v) : String(v));

/**
 * A value as conditions and value maps compare it: conditionText without the spaces around a text, which a
 * spreadsheet cell (`deleted `, `yes\u00a0`) does not show: a rule that read them would let such a record
 * through without a word.
 */
export const comparedText = (v: unknown): string => (typeof v === 'string' ? v.trim() : conditionText(v));

/**
 * Whether a source value is one of `values` (texts written in the pipeline file): compared as text, except
 * that a JSON true or false is its name in any case, as YAML writes booleans (`True`, `FALSE`), and a JSON
 * number equals a text denoting it (`1.50` holds for 1.5): neither has text of its own that a user could
 * match otherwise.
 */
function listedText(values: readonly unknown[]): (v: unknown) => boolean {
  const texts = new Set(values.map(comparedText));
  const booleans = booleanNames(texts);
  const numbers = new Set<number>();
  for (const t of texts) if (denotesNumber(t)) numbers.add(Number(t));
  return (v) => {
    if (typeof v === 'boolean') return booleans.has(v);
    if (typeof v === 'number') return numbers.has(v) || texts.has(conditionText(v));
    const text = comparedText(v);
    if (texts.has(text)) return true;
    const whole = typeof v === 'string' ? wholeNumberText(text) : undefined;
    return whole !== undefined && texts.has(whole);
  };
}

/** A number as JSON writes one (no leading zero: `007` is a code, which no JSON number is written as). */
const JSON_NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/**
 * Whether text written in the pipeline file denotes a number that a JSON source's number (which keeps no
 * text of its own: `1.50` there is 1.5) is compared with by value: `1.50`, `2.0`, `1e3`; not `007`.
 */
export const denotesNumber = (text: string): boolean => JSON_NUMBER_TEXT.test(text);

/** The booleans whose names, in any case, are among `texts` (`True` names true). */
export function booleanNames(texts: Iterable<string>): Set<boolean> {
  const out = new Set<boolean>();
  for (const t of texts) {
    const lower = t.toLowerCase();
    if (lower === 'true' || lower === 'false') out.add(lower === 'true');
  }
  return out;
}

/** Says a condition in words (`kind in ["join","leave"]`), for reports and people. */
export function describeCondition(rule: Condition): string {
  const field = fieldRefName(rule.field);
  for (const op of CONDITION_OPERATORS) if (rule[op] !== undefined) return `${field} ${op} ${JSON.stringify(rule[op])}`;
  return field;
}

/**
 * Compiles one condition into a test (closures over precomputed sets and regular expressions). Throws
 * MappingError at `path` for a condition without exactly one test, or with a bad regular expression.
 */
export function compileCondition(rule: Condition, path: string): ConditionTest {
  const ops = CONDITION_OPERATORS.filter((op) => rule[op] !== undefined);
  if (ops.length !== 1) throw new MappingError(`${path}: a condition has exactly one of ${CONDITION_OPERATORS.join(', ')}; found ${ops.length}`, path);
  const { field } = rule;
  const op = ops[0]!;
  // `notEquals: null` would hold for every missing or null value, the opposite of what it reads as.
  if (op !== 'matches' && op !== 'empty' && (rule[op] === null || (Array.isArray(rule[op]) && rule[op].includes(null))))
    throw new MappingError(
      `${path}.${op}: a value is compared as text, and null is none: for a missing, null or empty value write \`empty: true\` (\`empty: false\` for a present one); for the text "null", quote it`,
      `${path}.${op}`,
    );
  checkComparedValues(rule, op, path);
  switch (op) {
    case 'equals': {
      const listed = listedText([rule.equals]);
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && listed(v);
      };
    }
    case 'notEquals': {
      const listed = listedText([rule.notEquals]);
      return (r) => {
        const v = valueAt(r, field);
        return isMissing(v) || !listed(v);
      };
    }
    case 'in': {
      const listed = listedText(rule.in ?? []);
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && listed(v);
      };
    }
    case 'notIn': {
      const listed = listedText(rule.notIn ?? []);
      return (r) => {
        const v = valueAt(r, field);
        return isMissing(v) || !listed(v);
      };
    }
    case 'matches': {
      if (REGEX_LITERAL.test(rule.matches ?? ''))
        throw new MappingError(
          `${path}.matches: ${JSON.stringify(rule.matches)} is written as a JavaScript /pattern/flags literal, which no text matches here: write the pattern alone (\`^bot\`; for any case, \`^[Bb][Oo][Tt]\`)`,
          `${path}.matches`,
        );
      let re: RegExp;
      try {
        re = new RegExp(rule.matches ?? '');
      } catch (error) {
        throw new MappingError(`${path}.matches: not a valid regular expression: ${(error as Error).message}`, `${path}.matches`);
      }
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && re.test(comparedText(v));
      };
    }
    default: {
      const wantEmpty = rule.empty === true;
      return (r) => isMissing(valueAt(r, field)) === wantEmpty;
    }
  }
}

/** `/^…/flags` or `/…$/flags`: a `^` after a `/` or a `$` before one matches nothing (no multiline flag here). */
const REGEX_LITERAL = /^\/(?:\^.*\/|.*\$\/)[dgimsuyv]*$/;

const kindOf = (v: unknown) => (Array.isArray(v) ? 'a list' : 'an object');
const isListOrObject = (v: unknown) => typeof v === 'object' && v !== null;

/**
 * A list or an object where a value is compared (`equals: [a, b]`, meaning `in`) and an empty `in` list: a
 * rule that never holds (or, with notEquals/notIn, always), which a skip rule or a `when` obeys without a word.
 */
function checkComparedValues(rule: Condition, op: (typeof CONDITION_OPERATORS)[number], path: string): void {
  const at = `${path}.${op}`;
  const value = rule[op];
  if ((op === 'equals' || op === 'notEquals') && isListOrObject(value))
    throw new MappingError(
      `${at}: compares one value, found ${kindOf(value)}; for any of several values write \`${op === 'equals' ? 'in' : 'notIn'}: [x, y]\` (to compare with a JSON list or object of the source, quote its JSON text)`,
      at,
    );
  if ((op === 'in' || op === 'notIn') && Array.isArray(value)) {
    if (value.length === 0) throw new MappingError(`${at}: an empty list, which no value is in; list the values, or remove the condition`, at);
    const nested = value.find(isListOrObject);
    if (nested !== undefined) throw new MappingError(`${at}: compares values, found ${kindOf(nested)} among them (to compare with a JSON list or object of the source, quote its JSON text)`, at);
  }
}

/** `when:` as written (one condition or a list) compiled into one test: every condition must hold. */
export function compileWhen(when: Condition | readonly Condition[], path: string): ConditionTest {
  if (!Array.isArray(when)) return compileCondition(when as Condition, path);
  const tests = when.map((c, i) => compileCondition(c, `${path}.${i}`));
  return (r) => tests.every((t) => t(r));
}
