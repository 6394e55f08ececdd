import { findIn, hexByte, shownAsReplacement, unreadableTextIn } from '../shared/utf8-marks.js';
import type { SourceItem } from './types.js';

/**
 * A record holding a byte its file's encoding cannot read becomes an unparseable record naming the field
 * and the byte; others pass unchanged. Called only for files where TextNormalizer marked a byte.
 */
export function rejectUnreadableText(item: SourceItem, encoding: string): SourceItem {
  if ('record' in item) {
    const found = unreadableTextIn(item.record, encoding);
    if (!found) return item;
    return {
      unparseable: { message: found.reason, expected: `text in ${encoding}`, raw: found.raw, foundText: found.foundText, ...(found.field === undefined ? {} : { field: found.field }) },
      position: item.position,
    };
  }
  const found = findIn(item.unparseable.raw, '');
  if (!found) return item;
  const u = item.unparseable;
  return {
    unparseable: {
      message: `invalid ${encoding}: byte ${hexByte(found.byte)} at character ${found.at}${found.field === '' ? '' : ` of ${found.field}`} cannot be read as ${encoding}; ${u.message}`,
      expected: `text in ${encoding}`,
      raw: shownAsReplacement(u.raw),
    },
    position: item.position,
  };
}
