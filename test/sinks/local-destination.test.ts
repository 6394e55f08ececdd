import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
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
