import type { z } from 'zod';
import { closest } from '../shared/closest-name.js';
import { knownKeysAt } from './known-keys.js';

/** One problem in a pipeline file, as a value (errors and warnings alike). */
export interface ConfigIssue {
  /** Dotted path in the file: `stages.messages.mapping.body`, `stages.users.skip.0.matches`; `""` for the file. */
  path: string;
  /** The problem, for people, starting with the path. */
  message: string;
  /** What was expected there, when that can be said. */
  expected?: string;
  /** 1-based line and column in the file, when the path (or its nearest parent) is in it. */
  line?: number;
  column?: number;
}

type Issue = z.core.$ZodIssue;

function joinPath(base: readonly PropertyKey[], extra: readonly PropertyKey[] = []): string {
  return [...base, ...extra].map(String).join('.');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

const HIDDEN = Symbol('hidden');

function found(value: unknown): string {
  if (value === HIDDEN) return 'a value not shown (secret)';
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

const TYPE_WORDS: Record<string, string> = { object: 'a mapping', array: 'a list', string: 'text', number: 'a number', boolean: 'true or false' };

/**
 * Union branches are tried in order; the issue to show is the one of the branch the user most likely
 * meant: the branch whose problems are deepest (not "wrong type at the value itself") and fewest.
 */
function bestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] {
  let best: readonly Issue[] = branches[0] ?? [];
  let bestScore = Infinity;
  for (const issues of branches) {
    let score = issues.length;
    for (const issue of issues) {
      if (issue.path.length === 0 && issue.code === 'invalid_type') score += 1000;
      if (issue.path.length === 0 && issue.code === 'unrecognized_keys') score += 100;
      // The nested-mapping branch refusing a rule's keys (schema.ts): the rule's own problem says more.
      if (issue.path.length === 0 && issue.code === 'custom') score += 100;
    }
    if (score < bestScore) {
      best = issues;
      bestScore = score;
    }
  }
  return best;
}

/** Turns zod issues into ConfigIssues with exact paths and what was expected. */
/** `schema`: the file's whole schema, to suggest the field an unknown one most likely meant. */
export function issuesFromZod(issues: readonly Issue[], input: unknown, base: readonly PropertyKey[] = [], schema?: z.ZodType): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const at = [...base, ...issue.path];
    const path = joinPath(at);
    const where = path === '' ? 'the file' : path;
    // Never echo a secret back, not even a malformed one.
    const value = /secret|password|token(?!Url)/i.test(path) ? HIDDEN : valueAt(input, at);
    switch (issue.code) {
      case 'invalid_union': {
        if (issue.errors.length > 0) out.push(...issuesFromZod(bestBranch(issue.errors), input, at, schema));
        else out.push({ path, message: `${where}: ${issue.message}` });
        break;
      }
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const guess = schema === undefined ? undefined : closest(key, knownKeysAt(schema, at));
          const hint = guess === undefined ? '' : `; did you mean ${JSON.stringify(guess)}?`;
          out.push({ path: joinPath(at, [key]), message: `${joinPath(at, [key])}: unknown field ${JSON.stringify(key)}${hint}`, expected: 'no such field' });
        }
        break;
      case 'invalid_type': {
        const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
        const message = value === undefined ? `${where}: required (${expected})` : `${where}: expected ${expected}, found ${found(value)}`;
        out.push({ path, message, expected });
        break;
      }
      case 'invalid_value': {
        const expected = `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
        out.push({ path, message: `${where}: expected ${expected}, found ${found(value)}`, expected });
        break;
      }
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? `at least ${String(issue.minimum)}` : `at most ${String(issue.maximum)}`;
        const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : '';
        const expected = `${bound}${unit}`;
        out.push({ path, message: `${where}: expected ${expected}, found ${found(value)}`, expected });
        break;
      }
      case 'invalid_format': {
        const expected = issue.format === 'regex' ? issue.message : `a ${issue.format}`;
        out.push({ path, message: `${where}: expected ${expected}, found ${found(value)}`, expected });
        break;
      }
      default:
        out.push({ path, message: `${where}: ${issue.message}` });
    }
  }
  return out;
}
