import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, setUpGeneratedRun, startImportFixture, type ImportFixture } from './support.js';

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

it('a row with a quote inside an unquoted field, or text after a closing quote, is rejected naming its file and line, and the rows after it are imported, also on a rerun', async () => {
  const { dir, config, state } = await setUpGeneratedRun(f, 'stray-quote', { users: 3, channels: 1, messages: 4 });
  await appendFile(join(dir, 'users.csv'), 'u9,stray-quote-cy,Cy "Q" Oh\nu10,stray-quote-di,Di\n');
  await appendFile(join(dir, 'messages.csv'), 'm8,c0,stray-quote-user0,she said "hi"\nm9,c0,stray-quote-user1,after the bad row\nm10,c0,stray-quote-user2,"He said "hi" to me"\nm11,c0,stray-quote-user0,last\n');
  const report = await runImport({ config, stateDir: state }, { client: f.client });
  expect(report.status).toBe('completed-with-rejects');
  expect(report.stages.users).toMatchObject({ read: 5, imported: 4, rejected: 1 });
  expect(report.stages.messages).toMatchObject({ read: 8, imported: 6, rejected: 2 });
  expect(report.totals.balanced).toBe(true);
  const verified = await runVerify({ config, rejectsFiles: [report.rejectsFile!], outDir: report.runDir, exportWait: { pollIntervalMs: 20, timeoutMs: 60_000 } }, { client: f.client });
  expect(verified.summary.status).toBe('exact');
  const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(rejects).toEqual([
    expect.objectContaining({
      stage: 'users', file: expect.stringMatching(/users\.csv$/), line: 5, record: 'u9,stray-quote-cy,Cy "Q" Oh',
      reasons: [expect.objectContaining({ sourceField: 'display', message: expect.stringMatching(/^a quote inside an unquoted field \(field 3: "Cy \\""\)/) })],
    }),
    expect.objectContaining({
      stage: 'messages', file: expect.stringMatching(/messages\.csv$/), line: 6, record: 'm8,c0,stray-quote-user0,she said "hi"',
      reasons: [expect.objectContaining({ sourceField: 'text', message: expect.stringMatching(/^a quote inside an unquoted field \(field 4/) })],
    }),
    expect.objectContaining({
      stage: 'messages', line: 8, record: 'm10,c0,stray-quote-user2,"He said "hi" to me"',
      reasons: [expect.objectContaining({ sourceField: 'text', message: expect.stringMatching(/^after a quoted field's closing quote comes "h", not a delimiter or a line break \(field 4\)/) })],
    }),
  ]);
  // What the platform holds: the user after the bad row, not the bad one.
  const names = (await all(f.client.users.list())).map((u) => u.name);
  expect(names).toContain('stray-quote-di');
  expect(names).not.toContain('stray-quote-cy');

  const again = await runImport({ config, stateDir: state }, { client: f.client });
  expect(again.stages.users).toMatchObject({ read: 5, rejected: 1 });
  expect(again.totals.balanced).toBe(true);
  const after = (await all(f.client.users.list())).map((u) => u.name).filter((n) => n.startsWith('stray-quote-'));
  expect(after.sort()).toEqual(['stray-quote-di', 'stray-quote-user0', 'stray-quote-user1', 'stray-quote-user2']);
}, 60_000);
