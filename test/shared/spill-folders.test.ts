import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateMattermostExport } from '../../fixtures/mattermost/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { ExternalSort } from '../../src/shared/external-sort.js';
import { removeStaleSpillFolders, SPILL_PREFIXES } from '../../src/shared/spill-folders.js';
import { writePipeline } from '../import/support.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spill-folders-test-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** What a kill -9 leaves: a folder of `prefix` in `where`, with an owner file (or none) and some spilled bytes. */
function leftFolder(where: string, prefix: string, owner: Record<string, unknown> | undefined): string {
  const dir = mkdtempSync(join(where, prefix));
  if (owner) writeFileSync(join(dir, 'owner.json'), JSON.stringify({ startedAt: '2026-11-20T00:00:00.000Z', ...owner }));
  writeFileSync(join(dir, 'run-0'), Buffer.alloc(1024));
  return dir;
}

const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('spill folders of killed runs', () => {
  it('are removed by any later run on the host: every kind, and only those whose owner is gone', async () => {
    const dead = deadPid();
    const killed = Object.values(SPILL_PREFIXES).map((prefix) => leftFolder(root, prefix, { pid: dead, host: hostname(), token: 'aa' }));
    const earlierLife = leftFolder(root, SPILL_PREFIXES.postSort, { pid: process.pid, host: hostname(), token: 'bb', thread: threadId });
    // The same pid, another thread (a worker of this process using the library): that thread's, in use.
    const otherThread = leftFolder(root, SPILL_PREFIXES.postSort, { pid: process.pid, host: hostname(), token: 'b2', thread: threadId + 1 });
    const live = leftFolder(root, SPILL_PREFIXES.keys, { pid: process.ppid, host: hostname(), token: 'cc' });
    const foreign = leftFolder(root, SPILL_PREFIXES.postSort, { pid: dead, host: `not-${hostname()}`, token: 'dd' });
    const unowned = leftFolder(root, SPILL_PREFIXES.verifyKeys, undefined);
    const notOurs = leftFolder(root, 'chatport-sandbox-', { pid: dead, host: hostname(), token: 'ee' });

    const removed = await removeStaleSpillFolders(root);

    expect(removed.sort()).toEqual([...killed, earlierLife].sort());
    expect([otherThread, live, foreign, unowned, notOurs].map((d) => existsSync(d))).toEqual([true, true, true, true, true]);
  });

  it('a sort spilled by this process names its owner, and is kept while in use', async () => {
    const sort = new ExternalSort(1, root);
    for (let i = 0; i < 10; i++) sort.add(10 - i, `text ${i}`);
    expect(sort.spilled).toBe(true);
    const [dir] = readdirSync(root).filter((n) => n.startsWith(SPILL_PREFIXES.postSort)).map((n) => join(root, n));
    expect(JSON.parse(readFileSync(join(dir!, 'owner.json'), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(await removeStaleSpillFolders(root)).toEqual([]);
    expect([...sort.sorted()]).toHaveLength(10);
    sort.close();
    expect(existsSync(dir!)).toBe(false);
  });

  it('an import run removes what a killed run left in the temp folder', async () => {
    const left = leftFolder(tmpdir(), SPILL_PREFIXES.postSort, { pid: deadPid(), host: hostname(), token: 'ff' });
    try {
      const file = join(root, 'e.jsonl');
      await generateMattermostExport({ out: file, seed: 5, messages: 10 });
      const { config } = await writePipeline(root, `name: mattermost\nmattermost:\n  export: ${file}\n`);
      const report = await runImport({ config, stateDir: join(root, 'state'), mode: 'dry-run' });
      expect(report.totals.balanced).toBe(true);
      expect(existsSync(left)).toBe(false);
    } finally {
      rmSync(left, { recursive: true, force: true });
    }
  });
});
