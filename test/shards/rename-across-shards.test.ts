import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { all, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { channelsOnBothShards, shardRunner } from './support.js';

/**
 * `mode: upsert`, a channel name freed by a rename in another shard: the source renames channel R
 * (`<p>alpha` → `<p>alpha-old`) and, later in the input, gives channel T (`<p>beta`) the name R had. One run
 * patches R first, then T. Sharded, T's shard cannot send T until R's shard has patched R: before, run first
 * it rejected T ("already taken") and ended well, so the platform's names depended on the pods' order. Now it
 * stops (75, temporary: the scheduler's retry) naming the shard that must run first, and its retry imports T.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

async function setUp(prefix: string, takerFirstInInput = false) {
  const dir = join(f.dir, prefix);
  // T falls to shard 0, R to shard 1.
  const [taker, renamer] = channelsOnBothShards(`${prefix}c`);
  const channels = (rows: string[]) => writeInput(dir, 'channels.csv', `key,name,members\n${rows.map((r) => `${r},${prefix}ana`).join('\n')}\n`);
  await writeInput(dir, 'users.csv', `id,username,display\nu1,${prefix}ana,Ana\n`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${taker},${prefix}ana,in T\nm2,${renamer},${prefix}ana,in R\n`);
  await channels([`${renamer},${prefix}alpha`, `${taker},${prefix}beta`]);
  const { config } = await writePipeline(dir, generatedPipeline(`rn-${prefix}`, 'mode: upsert'));
  const run = shardRunner(f, config, join(dir, 'state'));
  await run(0, 2);
  await run(1, 2);
  // The next night's source: R renamed, T takes R's old name.
  const renamed = [`${renamer},${prefix}alpha-old`, `${taker},${prefix}alpha`];
  await channels(takerFirstInInput ? renamed.reverse() : renamed);
  const names = async () => {
    const held = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.properties?.chatportPipeline === `rn-${prefix}`);
    return Object.fromEntries(held.map((c) => [String(c.properties!.chatportKey), c.name]));
  };
  return { run, names, expected: { [renamer]: `${prefix}alpha-old`, [taker]: `${prefix}alpha` } };
}

describe('a channel name another shard frees by a rename (mode: upsert)', () => {
  it('the renaming shard first: both renamed', async () => {
    const { run, names, expected } = await setUp('rf');
    await run(1, 2);
    expect((await run(0, 2)).stages.channels).toMatchObject({ read: 1, updated: 1, rejected: 0 });
    expect(await names()).toEqual(expected);
  });

  it('the taking shard first: it stops, temporary, naming the shard to run first; its retry renames', async () => {
    const { run, names, expected } = await setUp('tf');
    const stopped = await run(0, 2).catch((error: unknown) => error);
    expect(stopped).toMatchObject({ code: 'SHARD_ORDER', transient: true, message: expect.stringMatching(/name 'tfalpha'.*Shard 1 of 2 must run its channels stage first/s) });
    expect(exitCodeFor(stopped)).toBe(75);
    await run(1, 2);
    expect((await run(0, 2)).stages.channels).toMatchObject({ read: 1, updated: 1, rejected: 0 });
    expect(await names()).toEqual(expected);
  });

  it('the taking record earlier in the input than the rename: the same, whichever shard runs first', async () => {
    const renamerFirst = await setUp('lr', true);
    await renamerFirst.run(1, 2);
    expect((await renamerFirst.run(0, 2)).stages.channels).toMatchObject({ read: 1, updated: 1, rejected: 0 });
    expect(await renamerFirst.names()).toEqual(renamerFirst.expected);
    const takerFirst = await setUp('lt', true);
    await expect(takerFirst.run(0, 2)).rejects.toMatchObject({ code: 'SHARD_ORDER', message: expect.stringMatching(/Shard 1 of 2 must run its channels stage first/) });
    await takerFirst.run(1, 2);
    expect((await takerFirst.run(0, 2)).stages.channels).toMatchObject({ read: 1, updated: 1, rejected: 0 });
    expect(await takerFirst.names()).toEqual(takerFirst.expected);
  });

  it('two channels swapping names in different shards: both rejected, as in one run, neither shard waiting', async () => {
    const dir = join(f.dir, 'swap');
    const [zero, one] = channelsOnBothShards('swc');
    const channels = (a: string, b: string) => writeInput(dir, 'channels.csv', `key,name,members\n${zero},${a},swana\n${one},${b},swana\n`);
    await writeInput(dir, 'users.csv', 'id,username,display\nu1,swana,Ana\n');
    await writeInput(dir, 'messages.csv', `id,channel,author,text\nm1,${zero},swana,hi\n`);
    await channels('swalpha', 'swbeta');
    const { config } = await writePipeline(dir, generatedPipeline('rn-swap', 'mode: upsert'));
    const run = shardRunner(f, config, join(dir, 'state'));
    await run(0, 2);
    await run(1, 2);
    await channels('swbeta', 'swalpha');
    for (const index of [0, 1]) expect((await run(index, 2)).stages.channels).toMatchObject({ read: 1, updated: 0, rejected: 1 });
  });
});
