import { compileCondition, describeCondition } from './conditions.js';
import type { SkipRule } from './mapping-spec.js';

/** Returns the index of the first skip rule the record matches, or -1. */
export type SkipTest = (record: Record<string, unknown>) => number;

/** Says a rule in words, for the skipped count's detail and for people. */
export const describeSkipRule: (rule: SkipRule) => string = describeCondition;

/**
 * Compiles skip rules once into one test. A skip rule is a condition (conditions.ts); a record is skipped
 * when any rule holds. Throws MappingError with the rule's path (`skip.2`) for a rule that cannot work.
 */
export function compileSkipRules(rules: readonly SkipRule[]): SkipTest {
  const tests = rules.map((rule, i) => compileCondition(rule, `skip.${i}`));
  if (tests.length === 0) return () => -1;
  return (record) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(record)) return i;
    return -1;
  };
}
