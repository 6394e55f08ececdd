/**
 * A local publish killed outright (SIGKILL) after each of its changes to the output folder, one kill point
 * after another: a warehouse loader reading the output then must find the old complete state, the new one,
 * or no date — every file the manifest names present with its bytes, sha256 and rows, the data folder
 * holding exactly the manifest's files (a reader that globs them sees no mixture), `_SUCCESS` only beside a
 * manifest — and the next run of that date must leave it whole.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportKilledAtFsCall } from '../helpers/cli-process.js';
import { runCli } from './cli.js';
import { readDataFile, readManifest } from './read-output.js';
import { BED_DAY, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
beforeAll(async () => {
  bed = await startExportBed({}, { users: 1, messages: 12 });
});
afterAll(() => bed.close());

const env = () => ({ CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret });
const args = (root: string, runId: string, ...extra: string[]) => ['export', 'messages', '--to', root, '--format', 'ndjson', '--date', BED_DAY, '--run-id', runId, '--poll-interval', '0.01', ...extra];

/** What a loader may rely on: the manifest's files as it says, the folder holding exactly them, and `_SUCCESS` only beside them. */
async function expectConsistent(root: string, at: string): Promise<{ runId: string; marked: boolean }> {
  const folder = join(root, 'messages', `dt=${BED_DAY}`);
  const present = existsSync(folder) ? readdirSync(folder).filter((n) => n !== '_SUCCESS').sort() : [];
  if (!existsSync(join(root, '_manifests', 'messages', `dt=${BED_DAY}`, 'manifest.json'))) {
    // The date between its two outputs: unmarked, and its files (if any) all of one run.
    expect(existsSync(join(folder, '_SUCCESS')), `${at}: _SUCCESS without a manifest`).toBe(false);
    expect(new Set(present.map((n) => /^part-([^-]+)-/.exec(n)?.[1])).size, `${at}: files of two runs together: ${present.join(', ')}`).toBeLessThanOrEqual(1);
    return { runId: 'none', marked: false };
  }
  const manifest = readManifest(root, 'messages', BED_DAY);
  expect(present, `${at}: the data folder holds exactly the manifest's files`).toEqual(manifest.files.map((f) => f.name).sort());
  let rows = 0;
  for (const file of manifest.files) {
    const path = join(folder, file.name);
    expect(existsSync(path), `${at}: ${file.name} the manifest names`).toBe(true);
    const bytes = readFileSync(path);
    expect([bytes.length, createHash('sha256').update(bytes).digest('hex')], `${at}: ${file.name}`).toEqual([file.bytes, file.sha256]);
    const fileRows = (await readDataFile(path)).length;
    expect(fileRows, `${at}: rows of ${file.name}`).toBe(file.rows);
    rows += fileRows;
  }
  expect(rows, at).toBe(manifest.rowCount);
  const marked = existsSync(join(folder, '_SUCCESS'));
  if (marked) expect(readdirSync(folder).filter((n) => n !== '_SUCCESS').sort(), `${at}: _SUCCESS beside other files`).toEqual(manifest.files.map((f) => f.name).sort());
  return { runId: manifest.runId, marked };
}

// NEW: the nightly's next run; OLD again: a scheduler's retry, which keeps its run id (Airflow's run_id).
it.each(['NEW', 'OLD'])('after a kill at any step of a local publish (run %s) the output is the old or the new state, and the next run leaves it whole', async (runId) => {
  const seen: string[] = [];
  for (let n = 1; ; n++) {
    const root = bed.tempDir();
    // Millisecond timestamps: the old files' bytes differ from the killed run's, whatever their names.
    expect((await runCli(args(root, 'OLD', '--timestamp-unit', 'ms'), env())).exitCode).toBe(ExitCode.OK);
    const killed = await chatportKilledAtFsCall(args(root, runId), env(), n, root);
    if (killed.killedAt === undefined) {
      expect(killed.code, killed.stderr).toBe(ExitCode.OK);
      break;
    }
    const at = `killed after ${killed.killedAt.replaceAll(root, '<to>')}`;
    seen.push(at);
    expect(killed.signal, at).toBe('SIGKILL');
    const left = await expectConsistent(root, at);
    expect(['OLD', 'NEW', 'none'], at).toContain(left.runId);

    // The next run first finishes what the killed one left: the date is whole and marked even when that
    // run fails before publishing anything (its export job refused).
    bed.sandbox.setFaults([{ method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 403 } }]);
    const refused = await runCli(args(root, 'REFUSED'), env());
    bed.sandbox.setFaults([]);
    expect(refused.exitCode, at).toBe(ExitCode.AUTH);
    const finished = await expectConsistent(root, `${at}, then a failed run`);
    expect(finished.marked, at).toBe(true);
    expect(left.runId === 'none' ? [runId] : [left.runId, runId], at).toContain(finished.runId);

    // The next run of the date publishes it whole.
    expect((await runCli(args(root, 'NEXT'), env())).exitCode, at).toBe(ExitCode.OK);
    expect(await expectConsistent(root, `${at}, then a run`), at).toEqual({ runId: 'NEXT', marked: true });
    const staging = join(root, '_staging', 'messages', `dt=${BED_DAY}`);
    expect(existsSync(staging) ? readdirSync(staging) : [], at).toEqual([]);
  }
  // The publish's own steps were among the kill points (not only the run's preparations).
  expect(seen.some((s) => s.includes('_SUCCESS')), seen.join('\n')).toBe(true);
}, 240_000);
