/**
 * A JSON string may write half of a UTF-16 surrogate pair alone (`"\ud800"`): JSON.parse accepts it, but it
 * is no Unicode character, so no UTF-8 text (what the platform stores) holds it, and it would arrive as
 * U+FFFD or be refused. A record holding one is refused, naming the field, as an unreadable byte is.
 *
 * Raw UTF-8 text cannot hold a lone surrogate (its bytes are invalid UTF-8, marked by TextNormalizer), so
 * only a `\uD800`–`\uDFFF` escape makes one: the record is searched only when its text has such an escape.
 */
import { findText } from '../utf8-marks.js';

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function loneSurrogateAt(text: string): { at: number; unit: number } | undefined {
  const m = LONE_SURROGATE.exec(text);
  return m ? { at: m.index + 1, unit: text.charCodeAt(m.index) } : undefined;
}

/** Why a parsed JSON record cannot be taken because a string of it holds a lone surrogate; undefined when none does. */
export function loneSurrogateIn(value: unknown, text: string): { message: string; expected: string; field?: string } | undefined {
  if (!text.includes('\\u') || !SURROGATE_ESCAPE.test(text)) return undefined;
  const found = findText(value, '', loneSurrogateAt);
  if (!found) return undefined;
  const where = found.inName ? `the field name ${JSON.stringify(found.field)}` : `field ${JSON.stringify(found.field)}`;
  const unit = `\\u${found.unit.toString(16).toUpperCase()}`;
  return {
    message: `${where} holds ${unit} at character ${found.at} without the other half of its surrogate pair: not a Unicode character, so UTF-8 (what the platform stores) cannot hold it`,
    expected: 'Unicode text (a \\uD800–\\uDFFF escape only as half of a pair)',
    ...(found.inName ? {} : { field: found.field }),
  };
}
