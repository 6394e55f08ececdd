/**
 * A run killed after publishing a date's data but before moving that date's rejects into place leaves a
 * manifest naming a rejects file that is still aside. The next run of the date first finishes that too,
 * even when it then fails before publishing anything itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportKilledAtFsCall } from '../helpers/cli-process.js';
import { runCli } from './cli.js';
import { readManifest } from './read-output.js';
import { BED_DAY, startStoredExportBed, type StoredExportBed } from './support.js';

let stored: StoredExportBed;
beforeAll(async () => {
  stored = await startStoredExportBed();
});
afterAll(() => stored.close());

const HEADER = 'id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime';
const env = () => ({ CHATPORT_API_URL: stored.bed.sandbox.url, CHATPORT_CLIENT_ID: stored.bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: stored.bed.sandbox.credentials.clientSecret });

it('a date whose data was published by a killed run gets that run\'s rejects in place from the next run, as its manifest names them', async () => {
  stored.serve([HEADER, `1,TEXT,10,general,50,ann,12,0,3,,${BED_DAY}T10:15:00Z,`, `two,TEXT,10,general,50,ann,12,0,3,,${BED_DAY}T10:16:00Z,`].join('\n'));
  const root = stored.bed.tempDir();
  const args = (runId: string) => ['export', 'messages', '--to', root, '--format', 'ndjson', '--date', BED_DAY, '--run-id', runId, '--poll-interval', '0.01'];
  // Killed right after its _SUCCESS took its place (the first such call removes the old one).
  const killed = await chatportKilledAtFsCall(args('KILLED'), env(), 2, root, `messages/dt=${BED_DAY}/_SUCCESS`);
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const rejectsFile = readManifest(root, 'messages', BED_DAY).details.rejectsFile as string;
  expect(rejectsFile).toMatch(/rejects-KILLED\.ndjson$/);

  stored.bed.sandbox.setFaults([{ method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 403 } }]);
  const refused = await runCli(args('REFUSED'), env());
  stored.bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: stored.storage.url } }]);
  expect(refused.exitCode).toBe(ExitCode.AUTH);
  expect(existsSync(rejectsFile), 'the rejects file the manifest names').toBe(true);
  expect(readFileSync(rejectsFile, 'utf8')).toContain('"two"');
}, 60_000);

it('in a window, the last day\'s rejects and the undated ones both come into place, neither removing the other', async () => {
  const DAY1 = '2026-11-20';
  const row = (id: string, created: string) => `${id},TEXT,10,general,50,ann,12,0,3,,${created},`;
  stored.serve([HEADER, row('1', `${DAY1}T10:00:00Z`), row('two', `${DAY1}T11:00:00Z`), row('3', `${BED_DAY}T10:00:00Z`), row('four', `${BED_DAY}T11:00:00Z`), row('5', '')].join('\n'));
  const root = stored.bed.tempDir();
  const args = (runId: string) => ['export', 'messages', '--to', root, '--format', 'ndjson', '--since', DAY1, '--until', '2026-11-22', '--run-id', runId, '--poll-interval', '0.01'];
  const killed = await chatportKilledAtFsCall(args('KILLED'), env(), 2, root, `messages/dt=${BED_DAY}/_SUCCESS`);
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const { rejectsFile, undatedRejectsFile } = readManifest(root, 'messages', BED_DAY).details as { rejectsFile: string; undatedRejectsFile: string };

  stored.bed.sandbox.setFaults([{ method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 403 } }]);
  const refused = await runCli(args('REFUSED'), env());
  stored.bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: stored.storage.url } }]);
  expect(refused.exitCode).toBe(ExitCode.AUTH);
  expect(readFileSync(rejectsFile, 'utf8')).toContain('"four"');
  expect(readFileSync(undatedRejectsFile, 'utf8')).toContain('"5"');
  expect(readFileSync(readManifest(root, 'messages', DAY1).details.rejectsFile as string, 'utf8')).toContain('"two"');
}, 60_000);
