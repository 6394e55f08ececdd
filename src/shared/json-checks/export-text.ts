/**
 * The chat-export readers (Slack, Discord) parse their JSON themselves, not through src/formats: this is
 * the text check those readers share with it. A record holding a byte that is not UTF-8 (its mark) or a
 * lone surrogate is rejected by name, never sent with U+FFFD. Both searches run only when the file showed
 * a reason for them, so clean exports pay nothing per record.
 */
import { unreadableTextIn } from '../utf8-marks.js';
import { loneSurrogateProblem } from './lone-surrogates.js';

/** What a reader saw in a file's text before its records are searched. */
export interface TextMarks {
  /** Bytes that are not UTF-8, marked (utf8-marks.ts). */
  invalidBytes: number;
  /** A `\uD800`–`\uDFFF` escape went by (lone-surrogates.ts). */
  surrogateEscapes: boolean;
}

export const CLEAN_TEXT: TextMarks = { invalidBytes: 0, surrogateEscapes: false };

/** Why a record's text cannot be sent: the field (absent when a key holds it), the reason, and the record as a reject shows it. */
export interface RecordTextProblem {
  field?: string;
  reason: string;
  expected: string;
  raw: unknown;
}

/** The first unreadable byte or lone surrogate a parsed record holds; undefined when its text can be sent as is. */
export function recordTextProblem(value: unknown, marks: TextMarks): RecordTextProblem | undefined {
  const unreadable = marks.invalidBytes > 0 ? unreadableTextIn(value, 'UTF-8') : undefined;
  if (unreadable) return { ...fieldOf(unreadable.field), reason: unreadable.reason, expected: 'text in UTF-8', raw: unreadable.raw };
  const lone = marks.surrogateEscapes ? loneSurrogateProblem(value) : undefined;
  // JSON.stringify writes a lone surrogate as its escape, so the rejects file stays UTF-8.
  if (lone) return { ...fieldOf(lone.field), reason: lone.message, expected: lone.expected, raw: value };
  return undefined;
}

const fieldOf = (field: string | undefined) => (field === undefined ? {} : { field });
