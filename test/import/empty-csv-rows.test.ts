import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { setUpGeneratedRun, startImportFixture, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

it('a sheet\'s trailing rows of delimiters only are skipped and counted, not rejected one by one', async () => {
  const { dir, config, state } = await setUpGeneratedRun(f, 'empty-rows', { users: 4, channels: 2, messages: 10 });
  // users.csv has three columns: Excel writes a formatted but empty row of them as two commas.
  await appendFile(join(dir, 'users.csv'), ',,\n,,\r\n\n,,\n');
  const report = await runImport({ config, stateDir: state }, { client: f.client });
  expect(report.status).toBe('succeeded');
  expect(report.stages.users).toMatchObject({ read: 7, imported: 4, rejected: 0, skipped: 3 });
  expect(report.totals.balanced).toBe(true);
}, 60_000);
