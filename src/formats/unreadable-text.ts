import { INVALID_BYTE_HIGH, INVALID_BYTE_LOW_BASE } from './decode-text.js';
import type { SourceItem } from './types.js';

const MARK_HIGH = String.fromCharCode(INVALID_BYTE_HIGH);

interface Unreadable {
  /** Where in the record: a field name, a path into nested JSON (`user.name`), or '' for the record's raw text. */
  field: string;
  byte: number;
  /** 1-based character in the field's text. */
  at: number;
  /** The field's name itself holds the byte (a CSV header, a JSON key). */
  inName: boolean;
}

function markIn(text: string): { at: number; byte: number } | undefined {
  for (let i = text.indexOf(MARK_HIGH); i !== -1; i = text.indexOf(MARK_HIGH, i + 1)) {
    const low = text.charCodeAt(i + 1) - INVALID_BYTE_LOW_BASE;
    if (low >= 0 && low <= 0xff) return { at: i + 1, byte: low };
  }
  return undefined;
}

function findIn(value: unknown, path: string): Unreadable | undefined {
  if (typeof value === 'string') {
    const m = markIn(value);
    return m && { field: path, ...m, inName: false };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findIn(value[i], path === '' ? String(i) : `${path}.${i}`);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const inner = path === '' ? key : `${path}.${key}`;
    const m = markIn(key);
    if (m) return { field: inner, ...m, inName: true };
    const found = findIn((value as Record<string, unknown>)[key], inner);
    if (found) return found;
  }
  return undefined;
}

/** The value with every mark shown as U+FFFD (for the rejects file, which must stay readable). */
function shownAsReplacement(value: unknown): unknown {
  if (typeof value === 'string') return value.includes(MARK_HIGH) ? value.replace(/\uDBFF[\uDF00-\uDFFF]/g, '\uFFFD') : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(shownAsReplacement);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [shownAsReplacement(k) as string, shownAsReplacement(v)]));
}

const hex = (byte: number) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * A record holding a byte its file's encoding cannot read becomes an unparseable record naming the field
 * and the byte; others pass unchanged. Called only for files where TextNormalizer marked a byte.
 */
export function rejectUnreadableText(item: SourceItem, encoding: string): SourceItem {
  if ('record' in item) {
    const found = findIn(item.record, '');
    if (!found) return item;
    const where = found.inName ? `the field name ${JSON.stringify(shownAsReplacement(found.field))}` : `field ${JSON.stringify(found.field)}`;
    return {
      unparseable: {
        message: `invalid ${encoding} in ${where}: byte ${hex(found.byte)} at character ${found.at} cannot be read as ${encoding} (shown as U+FFFD here)`,
        expected: `text in ${encoding}`,
        raw: shownAsReplacement(item.record),
        ...(found.inName ? {} : { field: found.field }),
      },
      position: item.position,
    };
  }
  const found = findIn(item.unparseable.raw, '');
  if (!found) return item;
  const u = item.unparseable;
  return {
    unparseable: {
      message: `invalid ${encoding}: byte ${hex(found.byte)} at character ${found.at}${found.field === '' ? '' : ` of ${found.field}`} cannot be read as ${encoding}; ${u.message}`,
      expected: `text in ${encoding}`,
      raw: shownAsReplacement(u.raw),
    },
    position: item.position,
  };
}
