import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { all, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { channelsOnBothShards as bothShards } from './support.js';

/**
 * Two DIRECT channel records of the same members (other source keys) in channels that fall to different
 * shards. The platform holds one DIRECT channel per set of members: one run imports the first and rejects
 * the second with its messages. Two shards must do the same between them, whichever runs first: sent by
 * both, the second was answered with the first's channel and its messages landed there.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Two DIRECT channel keys of `prefix` that fall to different shards of two, the first on shard 0. */
const channelsOnBothShards = (prefix: string) => bothShards(`${prefix}d`);

const withChannelType = (yaml: string) => yaml.replace('type: { const: PUBLIC }, name: name,', 'type: type, name: name,');

async function setUp(prefix: string): Promise<{ dir: string; pipelineId: string }> {
  const dir = join(f.dir, prefix);
  const [first, second] = channelsOnBothShards(prefix);
  await writeInput(dir, 'users.csv', `id,username,display\nu1,${prefix}ana,Ana\nu2,${prefix}bo,Bo\n`);
  await writeInput(dir, 'channels.csv', `key,type,name,members\n${first},DIRECT,,${prefix}ana|${prefix}bo\n${second},DIRECT,,${prefix}bo|${prefix}ana\n`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${first},${prefix}ana,first dm\nm2,${second},${prefix}bo,second dm\n`);
  await writePipeline(dir, withChannelType(generatedPipeline(`dm-${prefix}`)));
  return { dir, pipelineId: `dm-${prefix}` };
}

const runShard = async (dir: string, index: number) => {
  const { config } = await writePipeline(dir, await readFile(join(dir, 'pipeline.yaml'), 'utf8'));
  return runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
};

/** What the platform holds of a pipeline: each channel's source key → its message bodies. */
async function held(pipelineId: string): Promise<Record<string, string[]>> {
  const channels = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.properties?.chatportPipeline === pipelineId);
  const out: Record<string, string[]> = {};
  for (const c of channels) out[String(c.properties!.chatportKey)] = (await all(f.client.channels.messages(c.id, { pageSize: 100 }))).map((m) => m.body ?? '');
  return out;
}

const sum = (reports: RunReport[], stage: 'channels' | 'messages', field: 'read' | 'imported' | 'rejected') => reports.reduce((n, r) => n + r.stages[stage]![field], 0);

describe('two DIRECT channels of the same members in different shards', () => {
  it('the one run imports the first and rejects the second, with its message', async () => {
    const { dir, pipelineId } = await setUp('one');
    const { config } = await writePipeline(dir, await readFile(join(dir, 'pipeline.yaml'), 'utf8'));
    const whole = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(whole.stages.channels).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(whole.stages.messages).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(await held(pipelineId)).toEqual({ [channelsOnBothShards('one')[0]]: ['first dm'] });
  });

  for (const [label, order] of [['the second\'s shard first', [1, 0]], ['the first\'s shard first', [0, 1]], ['both at once', undefined]] as const)
    it(`so do two shards, ${label}`, async () => {
      const prefix = `two${order?.join('') ?? 'both'}`;
      const { dir, pipelineId } = await setUp(prefix);
      const reports = order ? [await runShard(dir, order[0]), await runShard(dir, order[1])] : await Promise.all([0, 1].map((index) => runShard(dir, index)));
      expect([sum(reports, 'channels', 'imported'), sum(reports, 'channels', 'rejected')]).toEqual([1, 1]);
      expect([sum(reports, 'messages', 'imported'), sum(reports, 'messages', 'rejected')]).toEqual([1, 1]);
      for (const r of reports) expect(r.verification?.status).toBe('exact');
      expect(await held(pipelineId)).toEqual({ [channelsOnBothShards(prefix)[0]]: ['first dm'] });
      const second = reports.find((r) => r.shard?.index === 1)!;
      const rejects = (await readFile(second.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; reasons: Array<{ message: string }> });
      expect(rejects.find((r) => r.stage === 'channels')?.reasons[0]?.message).toMatch(/^members: the DIRECT channel of source key .* a channel another shard imports, has the same members/);
    });
});
