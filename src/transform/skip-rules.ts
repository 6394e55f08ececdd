import { MappingError } from './compile-mapping.js';
import type { SkipRule } from './mapping-spec.js';
import { valueAt } from './source-fields.js';

/** Returns the index of the first skip rule the record matches, or -1. */
export type SkipTest = (record: Record<string, unknown>) => number;

const OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'matches', 'empty'] as const;

const read = valueAt;

const isMissing = (v: unknown) => v === undefined || v === null || v === '';
/** Rules compare text, so YAML's `equals: 1` matches CSV's "1" as well as JSON's 1. */
const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Says a rule in words, for the skipped count's detail and for people. */
export function describeSkipRule(rule: SkipRule): string {
  const field = typeof rule.field === 'string' ? rule.field : rule.field.join('.');
  for (const op of OPERATORS) if (rule[op] !== undefined) return `${field} ${op} ${JSON.stringify(rule[op])}`;
  return field;
}

/**
 * Compiles skip rules once into one test (closures over precomputed sets and regular expressions).
 * Throws MappingError with the rule's path (`skip.2`) for a rule without exactly one test or a bad regex.
 */
export function compileSkipRules(rules: readonly SkipRule[]): SkipTest {
  const tests = rules.map((rule, i): ((r: Record<string, unknown>) => boolean) => {
    const path = `skip.${i}`;
    const ops = OPERATORS.filter((op) => rule[op] !== undefined);
    if (ops.length !== 1) throw new MappingError(`${path}: a skip rule has exactly one of ${OPERATORS.join(', ')}; found ${ops.length}`, path);
    const { field } = rule;
    switch (ops[0]) {
      case 'equals': {
        const want = text(rule.equals);
        return (r) => {
          const v = read(r, field);
          return !isMissing(v) && text(v) === want;
        };
      }
      case 'notEquals': {
        const want = text(rule.notEquals);
        return (r) => {
          const v = read(r, field);
          return isMissing(v) || text(v) !== want;
        };
      }
      case 'in': {
        const set = new Set((rule.in ?? []).map(text));
        return (r) => {
          const v = read(r, field);
          return !isMissing(v) && set.has(text(v));
        };
      }
      case 'notIn': {
        const set = new Set((rule.notIn ?? []).map(text));
        return (r) => {
          const v = read(r, field);
          return isMissing(v) || !set.has(text(v));
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
          const v = read(r, field);
          return !isMissing(v) && re.test(text(v));
        };
      }
      default: {
        const wantEmpty = rule.empty === true;
        return (r) => isMissing(read(r, field)) === wantEmpty;
      }
    }
  });
  if (tests.length === 0) return () => -1;
  return (record) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(record)) return i;
    return -1;
  };
}
