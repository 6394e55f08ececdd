/** What NDJSON lines and JSON array elements share once parsed: why an object cannot be a record as written. */
import type { ParsedJson } from '../lossless-json.js';
import { duplicateKeyIn, duplicateKeyMessage } from './duplicate-keys.js';
import { extremeNumberIn, extremeNumberMessage } from './number-range.js';
import { loneSurrogateIn } from './lone-surrogates.js';

/**
 * A number a double cannot hold, a key written twice in an object, or a lone surrogate (with the field it is
 * in); undefined when the record is as written.
 */
export function jsonRecordProblem(parsed: ParsedJson, text: string): { message: string; expected: string; field?: string } | undefined {
  const extreme = parsed.mayHoldExtremeNumber ? extremeNumberIn(text) : undefined;
  if (extreme) return { message: extremeNumberMessage(extreme), expected: 'numbers a double holds' };
  const duplicate = duplicateKeyIn(text, parsed.keyCount);
  if (duplicate) return { message: duplicateKeyMessage(duplicate), expected: 'each key once in an object' };
  return loneSurrogateIn(parsed.value, text);
}
