/**
 * A channel the platform holds twice: a second channel carrying the pipeline's id and a source channel's key
 * (made by another tool, or by an earlier broken run). Verification must name the second copy (its id and
 * the one compared), compare the members and messages in the channel chatport's run maps the key to, and
 * not call the channel's members and messages missing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { findRunsToVerify } from '../../src/pipeline/shards/shard-runs.js';
import { all, generateCsvs, generatedPipeline, writeCsvs, writePipeline } from '../import/support.js';
import { sandboxAndHand } from './by-hand.js';

const t = sandboxAndHand();

const FAST_EXPORT = { exportWait: { pollIntervalMs: 20, timeoutMs: 120_000 } };

async function importGenerated(name: string) {
  const dir = join(t.f.dir, name);
  await writeCsvs(dir, generateCsvs({ users: 3, channels: 3, messages: 24 }, `${name}-`));
  const { config } = await writePipeline(dir, generatedPipeline(name), t.f.env);
  const state = join(dir, 'state');
  const report = await runImport({ config, stateDir: state, verify: {} }, { client: t.f.client });
  expect(report.verification?.status).toBe('exact');
  return { config, state };
}

/** A second channel for source channel c1, with a member and a message of its own, as another tool makes it. */
async function secondCopyOf(name: string, pipelineId: string, channelName: string) {
  const original = (await all(t.f.client.channels.list())).find((c) => c.properties?.chatportKey === 'c1' && c.properties.chatportPipeline === pipelineId)!;
  const copy = await t.hand.call('POST', '/channels', { type: 'PUBLIC', name: channelName, properties: { chatportPipeline: pipelineId, chatportKey: 'c1' } });
  await t.hand.call('POST', `/channels/${String(copy.id)}/members`, { username: `${name}-user0` });
  await t.hand.call('POST', `/channels/${String(copy.id)}/messages`, { type: 'TEXT', body: 'sent by another tool', user: { username: `${name}-user0` } });
  return { original: String(original.id), copy: String(copy.id) };
}

describe('a channel held twice', () => {
  it("names the second copy and compares the channel chatport's run maps the key to", async () => {
    const { config, state } = await importGenerated('twice');
    // The copy takes the expected name; the original is renamed out of its way: only the run state tells them apart.
    const original = (await all(t.f.client.channels.list())).find((c) => c.name === 'twice-chan-1')!;
    await t.hand.mergePatch(`/channels/${String(original.id)}`, { name: 'twice-chan-1-old', displayName: 'twice-chan-1' });
    const ids = await secondCopyOf('twice', config.id, 'twice-chan-1');
    const run = (await findRunsToVerify(state, undefined))!;
    const result = await runVerify({ config, rejectsFiles: run.rejectsFiles, channelIdFiles: run.channelIdFiles, ...FAST_EXPORT }, { client: t.f.client });
    expect(result.differences.map((d) => [d.kind, d.stage, d.sourceKey, d.platformId, d.fields])).toEqual([
      ['changed', 'channels', 'c1', String(original.id), ['name']],
      ['extra', 'channels', 'c1', ids.copy, undefined],
    ]);
    expect(result.differences[1]!.message).toBe(
      `channel c1 is on the platform 2 times (ids ${[String(original.id), ids.copy].sort().join(', ')}): channel ${String(original.id)} is compared (chatport's run maps c1 to it), channel ${ids.copy} is a second copy (its members and messages are not compared)`,
    );
    expect(result.summary.status).toBe('differences');
    expect(result.summary.stages.members).toMatchObject({ expected: 9, verified: 9 });
    expect(result.summary.stages.messages).toMatchObject({ expected: 24, verified: 24 });
  });

  it('without run state: the channel of the expected name is compared', async () => {
    const { config } = await importGenerated('twicenostate');
    const ids = await secondCopyOf('twicenostate', config.id, 'twicenostate-other');
    const result = await runVerify({ config, ...FAST_EXPORT }, { client: t.f.client });
    expect(result.differences.map((d) => [d.kind, d.stage, d.sourceKey, d.platformId])).toEqual([['extra', 'channels', 'c1', ids.copy]]);
    expect(result.differences[0]!.message).toMatch(new RegExp(`channel ${ids.original} is compared \\(its name is the source's\\), channel ${ids.copy} is a second copy`));
    expect(result.summary.stages.messages).toMatchObject({ expected: 24, verified: 24 });
  });
});
