import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShardedStatus, shardCountRuns } from '../../src/pipeline/shards/combined-status.js';

/**
 * A migration split over 4 shards one night and 3 the next keeps both sets of folders under one state
 * root. `status --shards 4` (a dashboard not updated) must say that a later run split otherwise exists,
 * not only "done" from the night before.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatport-combined-status-'));
  // Run ids are ULIDs: they sort by start time.
  for (let i = 0; i < 4; i++) await mkdir(join(root, `shard-${i}-of-4`, 'runs', `01M8E00000000000000000000${i}`), { recursive: true });
  for (let i = 0; i < 3; i++) await mkdir(join(root, `shard-${i}-of-3`, 'runs', `01M8F00000000000000000000${i}`), { recursive: true });
  await mkdir(join(root, 'verify-shards-of-4'));
  // A dry run over 5 shards after both: it sent nothing, so it is no later run.
  await mkdir(join(root, 'shard-0-of-5', 'runs', '01M8G000000000000000000000'), { recursive: true });
  await writeFile(join(root, 'shard-0-of-5', 'runs', '01M8G000000000000000000000', 'report.json'), '{"status":"dry-run"}');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('shard counts under one state root', () => {
  it('lists each count with its newest run, newest first', async () => {
    expect(await shardCountRuns(root)).toEqual([
      { count: 3, runId: '01M8F000000000000000000002' },
      { count: 4, runId: '01M8E000000000000000000003' },
      { count: 5, runId: '' },
    ]);
  });

  it("the older count's status names the newer run; the newer count's names none", async () => {
    expect((await readShardedStatus(root, 4)).newer).toEqual([{ count: 3, runId: '01M8F000000000000000000002' }]);
    expect((await readShardedStatus(root, 3)).newer).toBeUndefined();
  });
});
