import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { combineStages } from '../../src/pipeline/shards/combined-status.js';
import { writePipeline } from '../import/support.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

/**
 * The Discord and Mattermost readers under `--shard i/3` (dry runs of the bundled samples): every member,
 * message, reply and rejected or skipped record is read by exactly one shard, users by all.
 */
const FIXTURES = join(import.meta.dirname, '../../fixtures');

describe.each([
  ['discord', join(FIXTURES, 'discord', 'sample')],
  ['mattermost', join(FIXTURES, 'mattermost', 'sample', 'export.jsonl')],
])('a %s export split over three shards', (platform, exportPath) => {
  it('reads each record in exactly one shard, as a single run does', async () => {
    const dir = await mkdtemp(join(tmpdir(), `chatport-shards-${platform}-`));
    const { config } = await writePipeline(dir, `name: ${platform}\n${platform}:\n  export: ${exportPath}\n`);
    const single = await runImport({ config, stateDir: join(dir, 'single'), mode: 'dry-run' });
    const shards = [];
    for (let index = 0; index < 3; index++) shards.push(await runImport({ config: { ...config, shard: { index, count: 3 } }, stateDir: join(dir, 'shards'), mode: 'dry-run' }));
    const combined = combineStages(shards);
    for (const stage of ['users', 'channels', 'members', 'messages'] as const)
      for (const field of ['read', 'rejected', 'skipped', 'duplicates', 'pending'] as const) expect({ stage, field, n: combined[stage]![field] }).toEqual({ stage, field, n: single.stages[stage]![field] });
    // Every shard read some messages: the samples' channels spread over all three.
    expect(shards.map((s) => s.stages.messages!.read > 0)).toEqual([true, true, true]);
    for (const s of shards) expect(s.stages.users!.read).toBe(single.stages.users!.read);
  });
});
