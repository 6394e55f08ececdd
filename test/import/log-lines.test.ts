/**
 * Every JSON log line of an import is one object with each key once: a log pipeline that reads it
 * strictly (or keeps the first of two values) must see what was meant.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { duplicateKeyIn } from '../../src/shared/json-checks/duplicate-keys.js';
import { parseJsonNoting } from '../../src/shared/lossless-json.js';
import { captureLogs } from '../api/support.js';
import { generateCsvs, generatedPipeline, startImportFixture, writeCsvs, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** The first key an object of the JSON line names twice (JSON.parse would keep the last silently). */
function repeatedKey(line: string): string | undefined {
  return duplicateKeyIn(line, parseJsonNoting(line, 'text').keyCount)?.key;
}

it('an import with its verification logs no line with a key twice', async () => {
  const dir = join(f.dir, 'log-lines');
  await writeCsvs(dir, generateCsvs({ users: 3, channels: 2, messages: 20 }, 'log-'));
  const { config } = await writePipeline(dir, generatedPipeline('log-lines'));
  const logs = captureLogs();
  const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client, logger: logs.logger });
  expect(report.verification?.status).toBe('exact');
  const lines = logs.lines.join('').split('\n').filter((l) => l.startsWith('{'));
  expect(lines.some((l) => l.includes('verifying what the platform holds'))).toBe(true);
  expect(lines.flatMap((l) => { const key = repeatedKey(l); return key === undefined ? [] : [`${key} in ${l}`]; })).toEqual([]);
});
