import { join } from 'node:path';
import type { PipelineConfig } from '../../src/config/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import type { ChatportClient } from '../../src/api/index.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { all, generatedPipeline, writeCsvs, writePipeline, type ImportFixture } from '../import/support.js';

/**
 * Generated CSVs for sharding tests: `channels` channels of unequal sizes (so shards get unequal work),
 * messages interleaved across channels, and two bad rows (an unknown channel, an empty body) whose rejects
 * must be reported by exactly one shard.
 */
export function shardedCsvs(prefix: string, counts = { users: 6, channels: 7, messages: 700 }) {
  const users = ['id,username,display', ...Array.from({ length: counts.users }, (_, i) => `u${i},${prefix}user${i},User ${i}`)];
  const channels = ['key,name,members', ...Array.from({ length: counts.channels }, (_, i) => `c${i},${prefix}chan-${i},${Array.from({ length: counts.users }, (_, u) => `${prefix}user${u}`).join('|')}`)];
  const messages = ['id,channel,author,text'];
  for (let i = 0; i < counts.messages; i++) {
    // Skewed on purpose: channel 0 gets the rest of every round of channels + 3.
    const c = i % (counts.channels + 3) < counts.channels ? i % (counts.channels + 3) : 0;
    messages.push(`m${i},c${c},${prefix}user${i % counts.users},message ${i} in c${c}`);
  }
  messages.push(`bad1,c-none,${prefix}user0,a message to a channel the input lacks`, `bad2,c1,${prefix}user1,`);
  return { users: `${users.join('\n')}\n`, channels: `${channels.join('\n')}\n`, messages: `${messages.join('\n')}\n` };
}

/** The bodies each source channel should hold, in source order. */
export function expectedBodies(csv: { messages: string }): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of csv.messages.trim().split('\n').slice(1)) {
    const [, channel, , text] = line.split(',');
    if (!text || channel === 'c-none') continue;
    let list = out.get(channel!);
    if (!list) out.set(channel!, (list = []));
    list.push(text);
  }
  return out;
}

/** What the platform holds of a prefix's channels: channel name → message bodies in id order. */
export async function platformBodies(client: ChatportClient, prefix: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const channel of await all(client.channels.list({ pageSize: 100 }))) {
    if (!channel.name?.startsWith(`${prefix}chan-`)) continue;
    const messages = (await all(client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    out.set(`c${channel.name.slice(`${prefix}chan-`.length)}`, messages.map((m) => m.body ?? ''));
  }
  return out;
}

export const shardState = (root: string, index: number, count: number) => join(root, `shard-${index}-of-${count}`);

/** Two channel keys (`<prefix>0`, `<prefix>1`, …) that fall to different shards of two: shard 0's first. */
export function channelsOnBothShards(prefix: string): [string, string] {
  const keys = Array.from({ length: 20 }, (_, i) => `${prefix}${i}`);
  return [keys.find((k) => shardOfKey(k, 2) === 0)!, keys.find((k) => shardOfKey(k, 2) === 1)!];
}

/**
 * shardedCsvs written into `<fixture folder>/<folder>` with a generated pipeline of `name` (and its
 * `options`): the pipeline's config and path, and the state folder its shards share.
 */
export async function setUpShardedRun(f: ImportFixture, folder: string, csv: Record<string, string>, name: string, options?: string, env: Record<string, string> = {}) {
  const dir = join(f.dir, folder);
  await writeCsvs(dir, csv);
  const { config, path } = await writePipeline(dir, options === undefined ? generatedPipeline(name) : generatedPipeline(name, options), env);
  return { dir, config, path, state: join(dir, 'state') };
}

/** Runs shard `index` of `count` of a setUpShardedRun pipeline, without verification (`restart`, `mode` as runImport takes them). */
export function shardRunner(f: ImportFixture, config: PipelineConfig, state: string) {
  return (index: number, count: number, options: { restart?: boolean; mode?: 'import' | 'dry-run' } = {}) =>
    runImport({ config: { ...config, shard: { index, count } }, stateDir: state, verify: false, ...options }, { client: f.client });
}
