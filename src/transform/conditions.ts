import { MappingError } from './compile-mapping-error.js';
import { stringifyJson } from '../shared/lossless-json.js';
import type { Condition } from './mapping-spec.js';
import { fieldRefName, valueAt } from './source-fields.js';

/**
 * Tests on one source field's value, shared by skip rules (`skip:`) and conditional mapping entries
 * (`when:`). Comparisons are on text, so YAML's `equals: 1` matches CSV's "1" as well as JSON's 1.
 */
export type ConditionTest = (record: Record<string, unknown>) => boolean;

export const CONDITION_OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'matches', 'empty'] as const;

const isMissing = (v: unknown) => v === undefined || v === null || v === '';

/** A value as conditions and value maps compare it: text as it is, a number (a bigint too) as its digits, a list or an object as its JSON. */
export const conditionText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' ? stringifyJson(v) : String(v));

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
  switch (ops[0]) {
    case 'equals': {
      const want = conditionText(rule.equals);
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && conditionText(v) === want;
      };
    }
    case 'notEquals': {
      const want = conditionText(rule.notEquals);
      return (r) => {
        const v = valueAt(r, field);
        return isMissing(v) || conditionText(v) !== want;
      };
    }
    case 'in': {
      const set = new Set((rule.in ?? []).map(conditionText));
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && set.has(conditionText(v));
      };
    }
    case 'notIn': {
      const set = new Set((rule.notIn ?? []).map(conditionText));
      return (r) => {
        const v = valueAt(r, field);
        return isMissing(v) || !set.has(conditionText(v));
      };
    }
    case 'matches': {
      let re: RegExp;
      try {
        re = new RegExp(rule.matches ?? '');
      } catch (error) {
        throw new MappingError(`${path}.matches: not a valid regular expression: ${(error as Error).message}`, `${path}.matches`);
      }
      return (r) => {
        const v = valueAt(r, field);
        return !isMissing(v) && re.test(conditionText(v));
      };
    }
    default: {
      const wantEmpty = rule.empty === true;
      return (r) => isMissing(valueAt(r, field)) === wantEmpty;
    }
  }
}

/** `when:` as written (one condition or a list) compiled into one test: every condition must hold. */
export function compileWhen(when: Condition | readonly Condition[], path: string): ConditionTest {
  if (!Array.isArray(when)) return compileCondition(when as Condition, path);
  const tests = when.map((c, i) => compileCondition(c, `${path}.${i}`));
  return (r) => tests.every((t) => t(r));
}
