import { describe, expect, it } from 'vitest';
import { createStageProcessor } from '../../src/transform/index.js';
import type { StageProcessorSpec } from '../../src/transform/index.js';
import { parseAll } from '../formats/collect.js';

const users: StageProcessorSpec = { pipelineId: 'demo', stage: 'users', key: 'id', mapping: { name: 'login', displayName: 'login', isGuest: { const: false } } };

/** A spreadsheet's sheet saved as CSV: the formatted but empty rows at its end are written as delimiters only. */
const sheet = 'id,login,team\nu1,ann,red\n,,\n;;\n"",,""\n,,\n';

describe('CSV rows made only of delimiters', () => {
  it('are skipped with a reason, each counted at its line, not rejected as missing fields', async () => {
    const process = createStageProcessor(users);
    const results = (await parseAll([sheet], { format: 'csv' })).map(process);
    expect(results.map((r) => [r.kind, r.position.line])).toEqual([
      ['accepted', 2],
      ['skipped', 3],
      // Another delimiter's row is one field of data: a record like any other.
      ['rejected', 4],
      ['skipped', 5],
      ['skipped', 6],
    ]);
    const skipped = results[1]!;
    expect(skipped.kind === 'skipped' && skipped.because).toBe('an empty row: every field is empty (a spreadsheet writes these for formatted rows with nothing in them)');
  });

  it('is a row where any field holds something (a space too) read as a record', async () => {
    const process = createStageProcessor(users);
    const results = (await parseAll(['id,login\n, \n'], { format: 'csv' })).map(process);
    expect(results.map((r) => r.kind)).toEqual(['rejected']);
  });
});
