import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TEAM_ID } from '../../fixtures/slack/generator/workspace.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { combineStages } from '../../src/pipeline/shards/combined-status.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';

/**
 * A generated Slack export (threads across day files, a 12-person group DM, placeholders, long messages)
 * migrated by three shards at once and, into a second sandbox, by one process: the platforms hold the same
 * users, channels, memberships, messages in order and reply threads, and the shards' reports add up to the
 * single run's. Each shard opens only its own conversations' day files in the messages pass.
 */
const N = 3;
let sharded: ImportFixture;
let single: ImportFixture;
let reports: RunReport[];
let singleReport: RunReport;
let shardedPlatform: PlatformState;
let singlePlatform: PlatformState;

const pipeline = (exportPath: string) => `name: slack\nslack:\n  export: ${exportPath}\noptions: { chunkRecords: 300, concurrency: 2 }\n`;

beforeAll(async () => {
  [sharded, single] = await Promise.all([startImportFixture(), startImportFixture()]);
  const exportPath = join(sharded.dir, 'export');
  await generateSlackExport({ out: exportPath, seed: 11, messages: 1500, longEvery: 500 });
  const { config } = await writePipeline(sharded.dir, pipeline(exportPath));
  // One after the other: shard 0 runs while no other shard's channel exists yet, so nothing of theirs can be
  // resolved by accident (the CSV tests run shards at once).
  reports = [];
  for (let index = 0; index < N; index++)
    reports.push(await runImport({ config: { ...config, shard: { index, count: N } }, stateDir: join(sharded.dir, 'state'), verify: {} }, { client: sharded.client }));
  const { config: whole } = await writePipeline(single.dir, pipeline(exportPath));
  singleReport = await runImport({ config: whole, stateDir: join(single.dir, 'state') }, { client: single.client });
  [shardedPlatform, singlePlatform] = await Promise.all([readPlatform(sharded.client), readPlatform(single.client)]);
}, 180_000);
afterAll(async () => {
  await sharded?.close();
  await single?.close();
});

describe('a Slack migration split over three shards', () => {
  it('leaves the platform as one process does: users, channels, members, messages in order, reply threads', () => {
    expect(shardedPlatform.users).toEqual(singlePlatform.users);
    expect(shardedPlatform.channels.map((c) => c.slackId)).toEqual(singlePlatform.channels.map((c) => c.slackId));
    for (const [i, channel] of shardedPlatform.channels.entries()) {
      const other = singlePlatform.channels[i]!;
      // DIRECT channels are named by the platform; everything else must match.
      expect({ ...channel, name: undefined }).toEqual({ ...other, name: undefined });
      if (channel.type !== 'DIRECT') expect(channel.name).toBe(other.name);
    }
    expect(shardedPlatform.channels.some((c) => c.threads.size > 0)).toBe(true);
  });

  it('counts every message once over the shards, and every shard verified its own part exact', () => {
    const combined = combineStages(reports);
    for (const stage of ['users', 'channels', 'members', 'messages'] as const)
      expect({ stage, ...pick(combined[stage]!) }).toEqual({ stage, ...pick(singleReport.stages[stage]!) });
    for (const report of reports) {
      expect(report.stages.messages!.read).toBeGreaterThan(0);
      expect(report.stages.messages!.read).toBeLessThan(singleReport.stages.messages!.read);
      expect(report.verification?.status).toBe('exact');
    }
  });
});

describe('a Slack shard\'s messages pass', () => {
  it('never opens another shard\'s conversation: a damaged day file is found by its owner only', async () => {
    const exportPath = join(sharded.dir, 'export');
    const damaged = join(sharded.dir, 'damaged');
    await cp(exportPath, damaged, { recursive: true });
    const channels = JSON.parse(await readFile(join(damaged, 'channels.json'), 'utf8')) as Array<{ id: string; name: string }>;
    const channel = channels[0]!;
    const day = (await readdir(join(damaged, channel.name))).sort()[0]!;
    await writeFile(join(damaged, channel.name, day), '[{"ts": "1.0", "text": "cut sho');
    const owner = shardOfKey(`${TEAM_ID}/${channel.id}`, N);
    await mkdir(join(sharded.dir, 'damaged-pipeline'), { recursive: true });
    const { config } = await writePipeline(join(sharded.dir, 'damaged-pipeline'), pipeline(damaged));
    for (let index = 0; index < N; index++) {
      const report = await runImport({ config: { ...config, shard: { index, count: N } }, stateDir: join(sharded.dir, 'damaged-state'), mode: 'dry-run' });
      const rejects = (await readFile(report.rejectsFile!, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes(`${channel.name}/${day}`));
      expect({ index, found: rejects.length > 0 }).toEqual({ index, found: index === owner });
    }
  });
});

const pick = (c: { read: number; imported: number; rejected: number; skipped: number; replies?: number; orphans?: number }) => ({
  read: c.read, imported: c.imported, rejected: c.rejected, skipped: c.skipped, replies: c.replies ?? 0, orphans: c.orphans ?? 0,
});
