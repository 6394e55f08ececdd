/**
 * Another format for a published date is refused (exit 78) with the way out: deleting that date's output.
 * The refusal rests on the date's manifest, outside the data folder, so the way out must name it: a user
 * who deletes only the data folder the message names is refused again, for ever.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { thrownMessage } from '../../src/shared/thrown-message.js';
import { runCli } from './cli.js';
import { BED_DAY, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
beforeAll(async () => {
  bed = await startExportBed({}, { users: 1, messages: 2 });
});
afterAll(() => bed.close());

const env = () => ({ CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret });

it('the refusal of another format names every file to delete, and deleting them lets the new format publish', async () => {
  const root = bed.tempDir();
  const run = (format: string) => runCli(['export', 'messages', '--to', root, '--format', format, '--date', BED_DAY, '--poll-interval', '0.01'], env());
  expect((await run('csv')).exitCode).toBe(ExitCode.OK);
  const manifest = join(root, '_manifests', 'messages', `dt=${BED_DAY}`, 'manifest.json');

  // What a warehouse user deletes first: the date's data folder.
  rmSync(join(root, 'messages', `dt=${BED_DAY}`), { recursive: true });
  const refused = await run('parquet');
  expect(refused.exitCode).toBe(ExitCode.CONFIG);
  expect(thrownMessage(refused.error)).toContain(manifest);

  rmSync(manifest);
  expect((await run('parquet')).exitCode).toBe(ExitCode.OK);
  expect(existsSync(join(root, 'messages', `dt=${BED_DAY}`, '_SUCCESS'))).toBe(true);
});
