import type { Reason } from './types.js';
import { describeFound } from './types.js';

/**
 * A number as Excel and LibreOffice show one too long for their cells (`1.23457E+15`): an upper-case E, a
 * signed exponent of two or three digits, one digit before the point. A spreadsheet that took a long id for
 * a number writes it so into the CSV, its other digits gone; imported, it would be another record's key or
 * name no record at all. Ids written otherwise (`1E5`, `1e+15`, `A1.5E+10`) are taken as they are.
 */
const SPREADSHEET_SCIENTIFIC = /^-?(\d)(?:\.(\d{1,14}))?E[+-]\d{2,3}$/;

/** The reason an id field holds a spreadsheet's rounded number, naming the first such field; else undefined. */
export function roundedIdReason(record: Record<string, unknown>, fields: readonly string[], itemField: string): Reason | undefined {
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    const match = SPREADSHEET_SCIENTIFIC.exec(value);
    if (match === null) continue;
    const digits = 1 + (match[2]?.length ?? 0);
    return {
      field: itemField,
      sourceField: field,
      expected: 'an id as written, not a number in scientific notation',
      found: describeFound(value),
      message: `${itemField} (from source field ${JSON.stringify(field)}): ${JSON.stringify(value)} looks like a number a spreadsheet rounded (scientific notation keeps ${digits} digit${digits === 1 ? '' : 's'} of the id); keep the column as text in the spreadsheet (format its cells as Text before the ids go in) and export the file again`,
    };
  }
  return undefined;
}
