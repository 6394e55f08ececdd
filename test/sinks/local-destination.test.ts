import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { createLocalDestination, writeExport } from '../../src/sinks/index.js';
import { describeDestinationContract, options, type DestinationUnderTest } from './destination-contract.js';
import { asyncRows, sampleRows } from './sample-rows.js';

const roots: string[] = [];
afterAll(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function localTarget(): Promise<DestinationUnderTest & { root: string }> {
  const root = await mkdtemp(join(tmpdir(), 'chatport-out-'));
  roots.push(root);
  return {
    root,
    destination: createLocalDestination(root),
    async listFiles() {
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name))).sort();
    },
    readFile: (path) => readFile(join(root, path)),
  };
}

describeDestinationContract('local', localTarget);

it('local: leaves no staging folder behind, and writes _SUCCESS after the manifest and the data', async () => {
  const target = await localTarget();
  const { manifest } = await writeExport(asyncRows(sampleRows(3000)), options(target, 'ndjson'));
  expect(await readdir(join(target.root, '_staging', 'messages', 'dt=2026-11-21')).catch(() => [])).toEqual([]);
  const mtime = async (path: string) => (await stat(join(target.root, path))).mtimeMs;
  const success = await mtime('messages/dt=2026-11-21/_SUCCESS');
  expect(success).toBeGreaterThanOrEqual(await mtime('_manifests/messages/dt=2026-11-21/manifest.json'));
  for (const file of manifest.files) expect(success).toBeGreaterThanOrEqual(await mtime(`messages/dt=2026-11-21/${file.name}`));
  expect(manifest.files[0]!.url).toBe(`file://${target.root}/messages/dt=2026-11-21/${manifest.files[0]!.name}`);
});

it('local: a run whose staging another run of the date cleared stops with a retryable error, not "input missing"', async () => {
  const target = await localTarget();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  const body = () => Readable.from([Buffer.from('x')]);
  const first = await target.destination.beginPublication(partition, 'RUNA');
  await first.writeDataFile(first.dataFileName(0, 'ndjson.gz'), body(), 'application/x-ndjson');
  // A second run of the same date starts and clears the date's staging (leftovers of crashed runs, it assumes).
  const second = await target.destination.beginPublication(partition, 'RUNB');
  for (const step of [() => first.writeDataFile(first.dataFileName(1, 'ndjson.gz'), body(), 'application/x-ndjson'), () => first.commit('{}')]) {
    const refused: unknown = await step().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'OUTPUT_CONCURRENT_WRITE', message: expect.stringContaining('another run is writing') });
    expect(exitCodeFor(refused)).toBe(ExitCode.TEMPORARY);
  }
  await first.abort();
  await second.writeDataFile(second.dataFileName(0, 'ndjson.gz'), body(), 'application/x-ndjson');
  await second.commit('{"runId":"RUNB"}');
  expect(await target.listFiles()).toEqual(['_manifests/messages/dt=2026-11-21/manifest.json', 'messages/dt=2026-11-21/_SUCCESS', 'messages/dt=2026-11-21/part-RUNB-00000.ndjson.gz']);
});

it('local: a full disk while the manifest is written is a disk failure (74), not an unwritable folder (73)', async () => {
  const target = await localTarget();
  const publication = await target.destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNFULL');
  await publication.writeDataFile(publication.dataFileName(0, 'ndjson.gz'), Readable.from([Buffer.from('x')]), 'application/x-ndjson');
  // /dev/full answers every write with ENOSPC: the manifest lands on a full "disk".
  await symlink('/dev/full', join(target.root, '_staging', 'messages', 'dt=2026-11-21', 'RUNFULL', 'manifest.json'));
  const failed: unknown = await publication.commit('{}').catch((error: unknown) => error);
  expect(failed).toMatchObject({ code: 'ENOSPC' });
  expect(exitCodeFor(failed)).toBe(ExitCode.IO_ERROR);
  await publication.abort();
});

it('local: a publication a killed run left that cannot be finished (a file of it lost) is discarded, not a refusal of every later run', async () => {
  const target = await localTarget();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  const publication = await target.destination.beginPublication(partition, 'KILLED');
  await publication.writeDataFile(publication.dataFileName(0, 'ndjson.gz'), Readable.from([Buffer.from('x')]), 'application/x-ndjson');
  // A file where the data folder goes: the commit passes its point of no return, then fails.
  await mkdir(join(target.root, 'messages'), { recursive: true });
  await writeFile(join(target.root, 'messages', 'dt=2026-11-21'), 'in the way');
  await expect(publication.commit('{"format":"ndjson"}')).rejects.toMatchObject({ code: 'OUTPUT_WRITE_FAILED' });
  await rm(join(target.root, 'messages', 'dt=2026-11-21'));
  const staging = join(target.root, '_staging', 'messages', 'dt=2026-11-21', 'KILLED');
  await rm(join(staging, 'data'), { recursive: true });

  expect(await target.destination.finishInterrupted(partition, 'ndjson')).toBe('discarded');
  expect(await readdir(staging).catch(() => 'gone')).toBe('gone');
  expect(await target.destination.finishInterrupted(partition, 'ndjson')).toBe('none');
});

it('local: a date an earlier release left without its folder (killed between its two renames) gets its published folder back', async () => {
  const target = await localTarget();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  const { manifest } = await writeExport(asyncRows(sampleRows(30)), options(target, 'ndjson'));
  const published = await target.listFiles();
  // What such a kill left: the published folder moved aside into the killed run's staging, its manifest in place.
  await mkdir(join(target.root, '_staging', 'messages', 'dt=2026-11-21', 'KILLED', 'data'), { recursive: true });
  await rename(join(target.root, 'messages', 'dt=2026-11-21'), join(target.root, '_staging', 'messages', 'dt=2026-11-21', 'KILLED', 'previous'));

  expect(await target.destination.finishInterrupted(partition, 'csv')).toBe('finished');
  expect((await target.listFiles()).filter((f) => !f.startsWith('_staging/'))).toEqual(published);
  expect(await target.destination.isMarked(partition)).toBe(true);
  expect(manifest.files.every((f) => published.includes(`messages/dt=2026-11-21/${f.name}`))).toBe(true);
});
