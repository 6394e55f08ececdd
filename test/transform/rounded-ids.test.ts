import { describe, expect, it } from 'vitest';
import { createStageProcessor } from '../../src/transform/index.js';

const at = { file: 'messages.csv', line: 2, index: 0 };
const messages = createStageProcessor(
  { pipelineId: 'demo', stage: 'messages', key: 'id', channel: 'ch', thread: 'parent', mapping: { type: { const: 'TEXT' }, body: 'text', user: 'from' } },
  { channelIds: () => 7 },
);
const record = (fields: Record<string, string>) => ({ record: { id: 'm1', ch: 'c1', parent: '', text: 'hi', from: 'ann', ...fields }, position: at });

describe('ids a spreadsheet rounded to scientific notation', () => {
  it('reject the record naming the field, the value and what to do, in the key, channel and thread fields', () => {
    for (const [source, field] of [['id', 'idempotencyKey'], ['ch', 'channelId'], ['parent', 'thread']] as const) {
      const result = messages(record({ [source]: '1.23457E+15' }));
      expect(result.kind).toBe('rejected');
      if (result.kind !== 'rejected') continue;
      expect(result.reasons).toEqual([
        {
          field,
          sourceField: source,
          expected: 'an id as written, not a number in scientific notation',
          found: '"1.23457E+15"',
          message: `${field} (from source field "${source}"): "1.23457E+15" looks like a number a spreadsheet rounded (scientific notation keeps 6 digits of the id); keep the column as text in the spreadsheet (format its cells as Text before the ids go in) and export the file again`,
        },
      ]);
    }
  });

  it('reject the forms Excel and LibreOffice write (E+ and E- with two or three digits, with or without a fraction)', () => {
    for (const value of ['1E+15', '-9.87654E+18', '1.2E+015', '5.5E-07'])
      expect(messages(record({ id: value })).kind, value).toBe('rejected');
  });

  it('take ids that only resemble a number: no sign in the exponent, lower case, letters around, long digits', () => {
    for (const value of ['1E5', '12E+15', '1e+15', 'A1.5E+10', '1.5E+1x', '1234567890123450000', '0x1E+10', '1.23457E+15 '])
      expect(messages(record({ id: value })).kind, value).toBe('accepted');
  });
});
