import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { all, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { channelsOnBothShards as bothShards } from './support.js';

/**
 * A message key used in two channels that fall to different shards (per-channel message numbers with
 * `key: id`): one run rejects the second record as a key seen before with other content; two shards must
 * do the same between them, not both send it (the platform would keep one and both would count it).
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Two channel keys of `prefix` that fall to different shards of two. */
const channelsOnBothShards = (prefix: string) => bothShards(`${prefix}c`);

async function writeInputs(dir: string, prefix: string, first: string, second: string): Promise<void> {
  await writeInput(dir, 'users.csv', `id,username,display\nu1,${prefix}ana,Ana\nu2,${prefix}bo,Bo\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\n${first},${prefix}first,${prefix}ana|${prefix}bo\n${second},${prefix}second,${prefix}ana|${prefix}bo\n`);
  // Numbered per channel: 1 and 2 appear in both; the first channel's come first in the file.
  const rows = ['id,channel,author,text', `1,${first},${prefix}ana,first one`, `2,${first},${prefix}bo,first two`, `1,${second},${prefix}ana,second one`, `3,${second},${prefix}bo,second three`, `2,${second},${prefix}bo,second two`];
  await writeInput(dir, 'messages.csv', `${rows.join('\n')}\n`);
}

describe('a key in two channels of different shards', () => {
  it('is imported once, from the first record, and rejected in the other shard with the reason, as one run does', async () => {
    const single = join(f.dir, 'single');
    const [a1, b1] = channelsOnBothShards('one');
    await writeInputs(single, 'one', a1, b1);
    const { config: one } = await writePipeline(single, generatedPipeline('cross-one'));
    const whole = await runImport({ config: one, stateDir: join(single, 'state'), verify: {} }, { client: f.client });
    expect(whole.stages.messages).toMatchObject({ read: 5, imported: 3, rejected: 2 });

    const dir = join(f.dir, 'sharded');
    const [a, b] = channelsOnBothShards('two');
    await writeInputs(dir, 'two', a, b);
    const { config } = await writePipeline(dir, generatedPipeline('cross-two'));
    const reports: RunReport[] = [];
    for (const index of [1, 0]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    const sum = (field: 'read' | 'imported' | 'rejected') => reports.reduce((n, r) => n + r.stages.messages![field], 0);
    expect([sum('read'), sum('imported'), sum('rejected')]).toEqual([5, 3, 2]);
    for (const r of reports) expect(r.verification?.status).toBe('exact');
    const second = reports[0]!; // shard 1 holds the second channel
    const rejects = (await readFile(second.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { line: number; reasons: Array<{ message: string }> });
    expect(rejects.map((r) => r.line)).toEqual([4, 6]);
    expect(rejects[0]!.reasons[0]!.message).toMatch(/^key "1" \(id\) was first seen at .*messages\.csv:2, in a channel another shard imports/);
    // The platform holds the first channel's messages 1 and 2, and the second channel's 3 only.
    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'cross-two');
    const bodies = await Promise.all(channels.map(async (c) => (await all(f.client.channels.messages(c.id, { pageSize: 100 }))).map((m) => m.body)));
    expect(bodies.flat().sort()).toEqual(['first one', 'first two', 'second three']);
  });
});

describe('a key whose first record a skip rule leaves out, in a channel of another shard', () => {
  it('is imported from the later record, as one run does', async () => {
    // A message moved to another channel: its old copy is marked deleted and skipped.
    const withSkip = (yaml: string) => yaml.replace('    channel: channel\n', '    channel: channel\n    skip: [{ field: text, equals: deleted }]\n');
    const write = async (dir: string, prefix: string, first: string, second: string) => {
      await writeInput(dir, 'users.csv', `id,username,display\nu1,${prefix}ana,Ana\n`);
      await writeInput(dir, 'channels.csv', `key,name,members\n${first},${prefix}first,${prefix}ana\n${second},${prefix}second,${prefix}ana\n`);
      await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${first},${prefix}ana,deleted\nm1,${second},${prefix}ana,moved here\n`);
    };
    const single = join(f.dir, 'skip-single');
    const [a1, b1] = channelsOnBothShards('skone');
    await write(single, 'skone', a1, b1);
    const { config: one } = await writePipeline(single, withSkip(generatedPipeline('cross-skip-one')));
    const whole = await runImport({ config: one, stateDir: join(single, 'state'), verify: {} }, { client: f.client });
    expect(whole.stages.messages).toMatchObject({ read: 2, imported: 1, skipped: 1, rejected: 0 });

    const dir = join(f.dir, 'skip-sharded');
    const [a, b] = channelsOnBothShards('sktwo');
    await write(dir, 'sktwo', a, b);
    const { config } = await writePipeline(dir, withSkip(generatedPipeline('cross-skip-two')));
    const reports: RunReport[] = [];
    for (const index of [0, 1]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    const sum = (field: 'read' | 'imported' | 'rejected' | 'skipped') => reports.reduce((n, r) => n + r.stages.messages![field], 0);
    expect([sum('read'), sum('imported'), sum('skipped'), sum('rejected')]).toEqual([2, 1, 1, 0]);
    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'cross-skip-two');
    const bodies = await Promise.all(channels.map(async (c) => (await all(f.client.channels.messages(c.id, { pageSize: 100 }))).map((m) => m.body)));
    expect(bodies.flat()).toEqual(['moved here']);
  });
});

describe('a key in two channels of different shards, with duplicates: last-wins', () => {
  it('is imported once, from the last record, and skipped in the other shard as superseded, as one run does', async () => {
    const options = 'chunkRecords: 50\n  concurrency: 3\n  duplicates: last-wins';
    const single = join(f.dir, 'last-single');
    const [a1, b1] = channelsOnBothShards('lwone');
    await writeInputs(single, 'lwone', a1, b1);
    const { config: one } = await writePipeline(single, generatedPipeline('cross-last-one', options));
    const whole = await runImport({ config: one, stateDir: join(single, 'state'), verify: {} }, { client: f.client });
    expect(whole.stages.messages).toMatchObject({ read: 5, imported: 3, skipped: 2, rejected: 0 });

    const dir = join(f.dir, 'last-sharded');
    const [a, b] = channelsOnBothShards('lwtwo');
    await writeInputs(dir, 'lwtwo', a, b);
    const { config } = await writePipeline(dir, generatedPipeline('cross-last-two', options));
    const reports: RunReport[] = [];
    for (const index of [0, 1]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    const sum = (field: 'read' | 'imported' | 'rejected' | 'skipped') => reports.reduce((n, r) => n + r.stages.messages![field], 0);
    expect([sum('read'), sum('imported'), sum('skipped'), sum('rejected')]).toEqual([5, 3, 2, 0]);
    for (const r of reports) expect(r.verification?.status).toBe('exact');
    // Shard 0 holds the first channel: both its records lose to later ones of the second channel.
    const superseded = (await readFile(join(reports[0]!.runDir, 'duplicates', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; line: number; of: { line: number } });
    expect(superseded.map((d) => [d.kind, d.line, d.of.line])).toEqual([['superseded', 2, 4], ['superseded', 3, 6]]);
    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'cross-last-two');
    const bodies = await Promise.all(channels.map(async (c) => (await all(f.client.channels.messages(c.id, { pageSize: 100 }))).map((m) => m.body)));
    expect(bodies.flat().sort()).toEqual(['second one', 'second three', 'second two']);
  });
});

describe('one channel name in two shards', () => {
  it('unique: suffix numbers the second as one run does, whichever shard runs first', async () => {
    const dir = join(f.dir, 'suffix');
    const [a, b] = channelsOnBothShards('suf');
    await writeInput(dir, 'users.csv', 'id,username,display\nu1,sufana,Ana\n');
    await writeInput(dir, 'channels.csv', `key,name,members\n${a},General,sufana\n${b},general,sufana\n`);
    await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${a},sufana,in a\nm2,${b},sufana,in b\n`);
    const yaml = generatedPipeline('cross-suffix').replace('name: name, members', 'name: { field: name, asName: true, unique: suffix }, members');
    const { config } = await writePipeline(dir, yaml);
    const reports: RunReport[] = [];
    for (const index of [1, 0]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    for (const r of reports) expect(r.stages.channels).toMatchObject({ rejected: 0, imported: 1 });
    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'cross-suffix');
    expect(new Map(channels.map((c) => [c.properties?.chatportKey, c.name]))).toEqual(new Map([[a, 'general'], [b, 'general-2']]));
  });
});

/**
 * One run and two shards (0 then 1) of a channels input whose rows `channelRows` writes for two channels
 * a and b of different shards (each with a message): their reports, and the names each platform holds.
 */
async function oneAndSharded(label: string, channelRows: (a: string, b: string, p: string) => string[], yaml: (name: string) => string) {
  const run = async (mode: 'one' | 'two') => {
    const prefix = `${label}${mode}`;
    const dir = join(f.dir, prefix);
    const [a, b] = channelsOnBothShards(prefix);
    await writeInput(dir, 'users.csv', `id,username,display\nu1,${prefix}ana,Ana\n`);
    // A row of two fields gets the one user as its members.
    await writeInput(dir, 'channels.csv', `key,name,members\n${channelRows(a, b, prefix).map((r) => (r.split(',').length === 2 ? `${r},${prefix}ana` : r)).join('\n')}\n`);
    await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${a},${prefix}ana,in a\nm2,${b},${prefix}ana,in b\n`);
    const { config } = await writePipeline(dir, yaml(prefix));
    const shards = mode === 'one' ? [undefined] : [{ index: 0, count: 2 }, { index: 1, count: 2 }];
    const reports: RunReport[] = [];
    for (const shard of shards) reports.push(await runImport({ config: { ...config, ...(shard ? { shard } : {}) }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    const held = new Map((await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === prefix).map((c) => [c.properties?.chatportKey === a ? 'a' : 'b', c.name?.slice(prefix.length)]));
    const sum = (stage: 'channels' | 'messages', field: 'imported' | 'rejected' | 'skipped') => reports.reduce((n, r) => n + r.stages[stage]![field], 0);
    return { held, counts: ['channels', 'messages'].map((stage) => [sum(stage as 'channels', 'imported'), sum(stage as 'channels', 'rejected'), sum(stage as 'channels', 'skipped')]) };
  };
  return { one: await run('one'), two: await run('two') };
}

describe('a channel name whose first record a later record of its key supersedes (duplicates: last-wins), in another shard', () => {
  it('holds no name, so the other shard\'s channel of that name is imported, as one run does', async () => {
    // Channel a is renamed from alpha to beta by its later record; b is named alpha in between.
    const { one, two } = await oneAndSharded('lwn', (a, b, p) => [`${a},${p}alpha`, `${b},${p}alpha`, `${a},${p}beta`], (name) => generatedPipeline(name).replace('options:\n', 'options:\n  duplicates: last-wins\n'));
    expect(one.counts).toEqual([[2, 0, 1], [2, 0, 0]]);
    expect(one.held).toEqual(new Map([['a', 'beta'], ['b', 'alpha']]));
    expect(two).toEqual(one);
  });
});

describe('a channel name asked for by a duplicate of an earlier key (dropped), in another shard', () => {
  it('holds no name, so the other shard\'s channel of that name is imported, as one run does', async () => {
    // Channel a appears again with another name (rejected as a duplicate key); b then has that name.
    const { one, two } = await oneAndSharded('dn', (a, b, p) => [`${a},${p}alpha`, `${a},${p}gamma`, `${b},${p}gamma`], (name) => generatedPipeline(name));
    expect(one.counts).toEqual([[2, 1, 0], [2, 0, 0]]);
    expect(one.held).toEqual(new Map([['a', 'alpha'], ['b', 'gamma']]));
    expect(two).toEqual(one);
  });
});

describe('a channel name asked for by a channel the platform refuses for an unknown member, in another shard', () => {
  it('holds no name, so the other shard\'s channel of that name is imported, as one run does', async () => {
    // Channel a names a member no user answers to: refused before it is sent, it claims no name.
    const { one, two } = await oneAndSharded('um', (a, b, p) => [`${a},${p}alpha,${p}ana|${p}ghost`, `${b},${p}alpha`], (name) => generatedPipeline(name));
    expect(one.counts).toEqual([[1, 1, 0], [1, 1, 0]]);
    expect(one.held).toEqual(new Map([['b', 'alpha']]));
    expect(two).toEqual(one);
  });
});
