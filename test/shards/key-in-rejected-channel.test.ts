import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { all, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { channelsOnBothShards } from './support.js';

/**
 * A message key first used in a channel the channels stage rejects (its name is an earlier channel's), then
 * in a channel of another shard. One run rejects the first message with its channel, and imports the second:
 * a record rejected for its channel holds no key. Two shards must do the same: every shard maps every
 * channel record (foreign-names.ts), so each knows that channel is never sent.
 */
let f: ImportFixture;
let single: ImportFixture;
beforeAll(async () => {
  [f, single] = await Promise.all([startImportFixture(), startImportFixture()]);
});
afterAll(async () => {
  await f.close();
  await single.close();
});

async function writeInputs(dir: string): Promise<void> {
  // Shard 0 holds a and b, shard 1 holds c; b is rejected, its name being a's.
  const [a, c] = channelsOnBothShards('c');
  const [b] = channelsOnBothShards('d');
  await writeInput(dir, 'users.csv', 'id,username,display\nu1,ana,Ana\nu2,bo,Bo\n');
  await writeInput(dir, 'channels.csv', `key,name,members\n${a},first,ana|bo\n${b},first,ana|bo\n${c},other,ana|bo\n`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text\n1,${a},ana,kept\n7,${b},ana,in the rejected channel\n7,${c},bo,in the other shard's channel\n`);
}

const bodies = async (client: ImportFixture['client']) =>
  (await Promise.all((await all(client.channels.list())).map(async (ch) => (await all(client.channels.messages(ch.id))).map((m) => m.body)))).flat().sort();

describe('a message key first seen in a rejected channel of another shard', () => {
  it('is imported from the later record, as one run does', async () => {
    const dir = join(f.dir, 'in');
    await writeInputs(dir);
    const { config } = await writePipeline(dir, generatedPipeline('rejected-channel-key'));
    const whole = await runImport({ config, stateDir: join(dir, 'single') }, { client: single.client });
    expect(whole.stages.messages).toMatchObject({ read: 3, imported: 2, rejected: 1 });

    const reports: RunReport[] = [];
    for (const index of [0, 1]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
    const sum = (field: 'read' | 'imported' | 'rejected') => reports.reduce((n, r) => n + r.stages.messages![field], 0);
    expect([sum('read'), sum('imported'), sum('rejected')]).toEqual([3, 2, 1]);
    expect(await bodies(f.client)).toEqual(await bodies(single.client));
    expect(await bodies(f.client)).toEqual(['in the other shard\'s channel', 'kept']);
  });
});

describe('a message key first seen in a channel the platform holds from an earlier run, but not in this run\'s channels input', () => {
  it('holds its key in the other shards, as one run does: the later record is rejected', async () => {
    const [a, c] = channelsOnBothShards('x');
    const [b] = channelsOnBothShards('y');
    const users = 'id,username,display\nu1,cy,Cy\nu2,di,Di\n';
    const run = async (client: ImportFixture['client'], dir: string, shards: number) => {
      const { config } = await writePipeline(dir, generatedPipeline('held-channel-key'));
      const state = join(dir, 'state');
      const reports: RunReport[] = [];
      if (shards === 1) reports.push(await runImport({ config, stateDir: state }, { client }));
      else for (const index of [0, 1]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: state }, { client }));
      return reports;
    };
    for (const [client, shards, name] of [[single.client, 1, 'one'], [f.client, 2, 'two']] as const) {
      // First night: b is made. Second night: b is not in the channels input, but its message is.
      const first = join(f.dir, `held-${name}-1`);
      await writeInput(first, 'users.csv', users);
      await writeInput(first, 'channels.csv', `key,name,members\n${a},xa,cy|di\n${b},xb,cy|di\n${c},xc,cy|di\n`);
      await writeInput(first, 'messages.csv', 'id,channel,author,text\n');
      await run(client, first, shards);
      const second = join(f.dir, `held-${name}-2`);
      await writeInput(second, 'users.csv', users);
      await writeInput(second, 'channels.csv', `key,name,members\n${a},xa,cy|di\n${c},xc,cy|di\n`);
      await writeInput(second, 'messages.csv', `id,channel,author,text\n9,${b},cy,in the held channel\n9,${c},di,a later record of key 9\n`);
      const reports = await run(client, second, shards);
      const sum = (field: 'imported' | 'rejected') => reports.reduce((n, r) => n + r.stages.messages![field], 0);
      expect({ name, imported: sum('imported'), rejected: sum('rejected') }).toEqual({ name, imported: 1, rejected: 1 });
    }
  });
});

/**
 * Message 7 in channel a (shard 0), which the platform refuses, then 7 in channel c (shard 1), in one run and
 * in two shards: one run rejects the first with its channel and imports the second; so must the shards,
 * each verifying exact. Returns the sharded platform's bodies.
 */
async function refusedChannelThenKey(folder: string, users: string, channelRows: (a: string, c: string) => string, authors: [string, string]) {
  const [a, c] = channelsOnBothShards(folder);
  const dir = join(f.dir, folder);
  await writeInput(dir, 'users.csv', users);
  await writeInput(dir, 'channels.csv', `key,name,members\n${channelRows(a, c)}`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text\n7,${a},${authors[0]},in ${folder}'s refused channel\n7,${c},${authors[1]},beside ${folder}'s refused channel\n`);
  const { config } = await writePipeline(dir, generatedPipeline(`${folder}-key`));
  const whole = await runImport({ config, stateDir: join(dir, 'single') }, { client: single.client });
  expect(whole.stages.messages).toMatchObject({ read: 2, imported: 1, rejected: 1 });
  const reports: RunReport[] = [];
  for (const index of [0, 1]) reports.push(await runImport({ config: { ...config, shard: { index, count: 2 } }, stateDir: join(dir, 'state'), verify: {} }, { client: f.client }));
  expect(reports.map((r) => [r.stages.messages!.imported, r.stages.messages!.rejected])).toEqual([[0, 1], [1, 0]]);
  expect(reports.map((r) => r.verification?.status)).toEqual(['exact', 'exact']);
  expect((await bodies(f.client)).filter((b) => b?.includes(`${folder}'s refused`))).toEqual([`beside ${folder}'s refused channel`]);
}

describe('a message key first seen in a channel of another shard that the platform refuses for an unknown member', () => {
  it('is imported from the later record, as one run does, not rejected as imported by the other shard', async () => {
    await refusedChannelThenKey('unknown-member', 'id,username,display\nu1,eve,Eve\nu2,fay,Fay\n', (a, c) => `${a},ga,eve|ghost\n${c},gc,eve|fay\n`, ['eve', 'fay']);
  });
});

describe('a message key first seen in a channel of another shard whose name the platform holds for another pipeline\'s channel', () => {
  it('is imported from the later record, as one run does', async () => {
    // Another pipeline holds the name 'tname' first, on both platforms.
    for (const [client, dir] of [[f.client, join(f.dir, 'taken-other')], [single.client, join(f.dir, 'taken-other-single')]] as const) {
      await writeInput(dir, 'users.csv', 'id,username,display\nh1,hol,Hol\n');
      await writeInput(dir, 'channels.csv', 'key,name,members\nz,tname,hol\n');
      await writeInput(dir, 'messages.csv', 'id,channel,author,text\n');
      const { config } = await writePipeline(dir, generatedPipeline('taken-name-holder'));
      await runImport({ config, stateDir: join(dir, 'state') }, { client });
    }
    await refusedChannelThenKey('taken-name', 'id,username,display\nu1,tia,Tia\nu2,tom,Tom\n', (a, c) => `${a},tname,tia|tom\n${c},tc,tia|tom\n`, ['tia', 'tom']);
  });
});
