/**
 * Another format for a published date is refused (exit 78) with the way out: deleting that date's output.
 * The refusal rests on the date being published whole (its manifest and `_SUCCESS`): the message names
 * both the data folder and the manifest, and deleting the data folder (with its `_SUCCESS`) is enough.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { thrownMessage } from '../../src/shared/thrown-message.js';
import { chatportKilledAtFsCall } from '../helpers/cli-process.js';
import { runCli } from './cli.js';
import { readManifest } from './read-output.js';
import { BED_DAY, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
beforeAll(async () => {
  bed = await startExportBed({}, { users: 1, messages: 2 });
});
afterAll(() => bed.close());

const env = () => ({ CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret });

it('the refusal of another format names the files to delete, and deleting the date lets the new format publish', async () => {
  const root = bed.tempDir();
  const run = (format: string) => runCli(['export', 'messages', '--to', root, '--format', format, '--date', BED_DAY, '--poll-interval', '0.01'], env());
  expect((await run('csv')).exitCode).toBe(ExitCode.OK);
  const manifest = join(root, '_manifests', 'messages', `dt=${BED_DAY}`, 'manifest.json');
  const refused = await run('parquet');
  expect(refused.exitCode).toBe(ExitCode.CONFIG);
  expect(thrownMessage(refused.error)).toContain(manifest);
  expect(thrownMessage(refused.error)).toContain(join(root, 'messages', `dt=${BED_DAY}`));

  // What a warehouse user deletes first: the date's data folder. The date is no longer published.
  rmSync(join(root, 'messages', `dt=${BED_DAY}`), { recursive: true });
  expect((await run('parquet')).exitCode).toBe(ExitCode.OK);
  expect(existsSync(join(root, 'messages', `dt=${BED_DAY}`, '_SUCCESS'))).toBe(true);
  expect(readManifest(root, 'messages', BED_DAY).format).toBe('parquet');
});

it('a run killed while publishing in one format does not stop a run in another: the date was never published, and the new format replaces it', async () => {
  const root = bed.tempDir();
  const args = (format: string) => ['export', 'messages', '--to', root, '--format', format, '--date', BED_DAY, '--poll-interval', '0.01'];
  // Killed right after its manifest took its place, before _SUCCESS: the date holds a parquet manifest, unmarked.
  const killed = await chatportKilledAtFsCall(args('parquet'), env(), 1, root, `_manifests/messages/dt=${BED_DAY}/manifest.json`);
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  expect(readManifest(root, 'messages', BED_DAY).format).toBe('parquet');
  expect(existsSync(join(root, 'messages', `dt=${BED_DAY}`, '_SUCCESS'))).toBe(false);

  const next = await runCli(args('ndjson'), env());
  expect(next.exitCode, thrownMessage(next.error)).toBe(ExitCode.OK);
  const manifest = readManifest(root, 'messages', BED_DAY);
  expect(manifest.format).toBe('ndjson');
  expect(readdirSync(join(root, 'messages', `dt=${BED_DAY}`)).sort()).toEqual(['_SUCCESS', ...manifest.files.map((f) => f.name)].sort());
}, 60_000);
