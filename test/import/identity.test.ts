import { compareInt64 } from '../../src/shared/int64.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { CHANNEL_KEY_PROPERTY, idempotencyKeyFor, PIPELINE_PROPERTY } from '../../src/transform/index.js';
import { all, generateCsvs, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Bodies per channel name, in the platform's order (ids grow as messages are applied). */
async function bodiesOf(channelName: string): Promise<string[]> {
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === channelName);
  if (!channel) throw new Error(`no channel ${channelName}`);
  const messages = await all(f.client.channels.messages(channel.id, { pageSize: 100 }));
  return messages.sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body ?? '');
}

/** A pipeline folder over generateCsvs with `prefix` on names and bodies; source keys (u0, c0, m0…) are the same for every prefix. */
async function pipelineFolder(name: string, prefix: string, messages: number) {
  const dir = join(f.dir, name);
  const csv = generateCsvs({ users: 2, channels: 2, messages }, prefix);
  await writeInput(dir, 'users.csv', csv.users);
  await writeInput(dir, 'channels.csv', csv.channels);
  await writeInput(dir, 'messages.csv', csv.messages.replaceAll('message number', `${prefix}message`));
  const { config } = await writePipeline(dir, generatedPipeline(name));
  return { dir, config, csv };
}

describe('identity scoped by pipeline', () => {
  it('two pipelines with the same source keys, then a top-up of the first with a fresh state folder: every channel holds exactly its own messages, in order', async () => {
    const one = await pipelineFolder('id-one', 'one-', 10);
    const two = await pipelineFolder('id-two', 'two-', 10);
    expect((await runImport({ config: one.config, stateDir: join(one.dir, 'state-1') }, { client: f.client })).status).toBe('succeeded');
    expect((await runImport({ config: two.config, stateDir: join(two.dir, 'state') }, { client: f.client })).status).toBe('succeeded');

    // The top-up: four more messages (m10…m13) on a fresh state folder, as a new machine would run it.
    const more = Array.from({ length: 4 }, (_, k) => `m${10 + k},c${k % 2},one-user${k % 2},one-message ${10 + k}`).join('\n');
    await writeInput(one.dir, 'messages.csv', `${one.csv.messages.replaceAll('message number', 'one-message')}${more}\n`);
    const topUp = await runImport({ config: one.config, stateDir: join(one.dir, 'state-2') }, { client: f.client });
    expect(topUp.status).toBe('succeeded');
    expect(topUp.stages.messages).toMatchObject({ read: 14, imported: 14, rejected: 0 });

    const expected = (prefix: string, c: number, total: number) => Array.from({ length: total }, (_, i) => i).filter((i) => i % 2 === c).map((i) => `${prefix}message ${i}`);
    expect(await bodiesOf('one-chan-0')).toEqual(expected('one-', 0, 14));
    expect(await bodiesOf('one-chan-1')).toEqual(expected('one-', 1, 14));
    expect(await bodiesOf('two-chan-0')).toEqual(expected('two-', 0, 10));
    expect(await bodiesOf('two-chan-1')).toEqual(expected('two-', 1, 10));

    // Users and channels carry the pipeline's id and their source key.
    const users = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.name.startsWith('two-'));
    expect(users.map((u) => u.properties).sort((a, b) => String(a?.[CHANNEL_KEY_PROPERTY]).localeCompare(String(b?.[CHANNEL_KEY_PROPERTY])))).toEqual([
      { [PIPELINE_PROPERTY]: 'id-two', [CHANNEL_KEY_PROPERTY]: 'u0' },
      { [PIPELINE_PROPERTY]: 'id-two', [CHANNEL_KEY_PROPERTY]: 'u1' },
    ]);
  });

  it('stops with IDENTITY_AMBIGUOUS (exit 65) naming the key and both ids when two of its channels carry one key', async () => {
    const amb = await pipelineFolder('id-amb', 'amb-', 4);
    expect((await runImport({ config: amb.config, stateDir: join(amb.dir, 'state-1') }, { client: f.client })).status).toBe('succeeded');
    // Someone gives the second channel the first one's key.
    const channels = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.name.startsWith('amb-chan-')).sort((a, b) => compareInt64(a.id, b.id));
    await f.client.channels.update(channels[1]!.id, { properties: { [CHANNEL_KEY_PROPERTY]: 'c0' } });

    const error = await runImport({ config: amb.config, stateDir: join(amb.dir, 'state-2') }, { client: f.client }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'IDENTITY_AMBIGUOUS', details: { key: 'c0', ids: [channels[0]!.id, channels[1]!.id] } });
    expect((error as Error).message).toContain('"c0"');
    expect(exitCodeFor(error)).toBe(ExitCode.DATA_INVALID);
    // Nothing was sent to either channel by the stopped run.
    expect(await bodiesOf('amb-chan-0')).toEqual(['amb-message 0', 'amb-message 2']);
    expect(await bodiesOf('amb-chan-1')).toEqual(['amb-message 1', 'amb-message 3']);
  });

  it('never sends messages into a DIRECT channel another pipeline made for the same members', async () => {
    const dir = join(f.dir, 'id-dm');
    await writeInput(dir, 'users.csv', 'id,username,display\nu0,dm-ann,Ann\nu1,dm-bob,Bob\n');
    await writeInput(dir, 'dms.csv', 'key,members\nd0,dm-ann|dm-bob\n');
    await writeInput(dir, 'a.csv', 'id,channel,author,text\nm0,d0,dm-ann,from a 0\nm1,d0,dm-bob,from a 1\n');
    await writeInput(dir, 'b.csv', 'id,channel,author,text\nm0,d0,dm-ann,from b 0\n');
    const dmPipeline = (name: string, messages: string, users: boolean) => `name: ${name}
stages:
${users ? `  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false } }
` : ''}  channels:
    source: { path: dms.csv }
    key: key
    mapping: { type: { const: DIRECT }, members: { field: members, split: "|" } }
  messages:
    source: { path: ${messages} }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author }
`;
    const a = await writePipeline(dir, dmPipeline('dm-a', 'a.csv', true));
    expect((await runImport({ config: a.config, stateDir: join(dir, 'state-a') }, { client: f.client })).status).toBe('succeeded');
    const b = await writePipeline(dir, dmPipeline('dm-b', 'b.csv', false));
    const report = await runImport({ config: b.config, stateDir: join(dir, 'state-b') }, { client: f.client });
    // The DIRECT item is rejected, naming the pipeline that owns the channel; so is its message.
    expect(report.stages.channels).toMatchObject({ read: 1, imported: 0, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 1, imported: 0, rejected: 1 });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; line: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.stage, r.line, r.reasons[0]!.field])).toEqual([['channels', 2, 'members'], ['messages', 2, 'channelId']]);
    expect(rejects[0]!.reasons[0]!.message).toContain('belongs to pipeline "dm-a"');

    const dms = (await all(f.client.channels.list({ type: 'DIRECT', members: ['dm-ann', 'dm-bob'] }))).filter((c) => c.members?.length === 2);
    expect(dms).toHaveLength(1);
    const bodies = (await all(f.client.channels.messages(dms[0]!.id))).sort((x, y) => compareInt64(x.id, y.id)).map((m) => m.body);
    expect(bodies).toEqual(['from a 0', 'from a 1']);
  });

  it('rejects a second DIRECT channel of the same members (the platform holds one), naming the first, and its messages', async () => {
    const dir = join(f.dir, 'id-dm-twice');
    await writeInput(dir, 'users.csv', 'id,username,display\nu0,tw-ann,Ann\nu1,tw-bob,Bob\n');
    await writeInput(dir, 'dms.csv', 'key,members\nd0,tw-ann|tw-bob\nd1,tw-bob|tw-ann\n');
    await writeInput(dir, 'm.csv', 'id,channel,author,text\nm0,d0,tw-ann,in d0\nm1,d1,tw-bob,in d1\n');
    const { config } = await writePipeline(dir, `name: dm-twice
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: dms.csv }, key: key, mapping: { type: { const: DIRECT }, members: { field: members, split: "|" } } }
  messages: { source: { path: m.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }
`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.channels).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(report.verification?.status).toBe('exact');
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; line: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.stage, r.line, r.reasons[0]!.field])).toEqual([['channels', 3, 'members'], ['messages', 3, 'channelId']]);
    expect(rejects[0]!.reasons[0]!.message).toContain('the DIRECT channel of source key d0 has the same members');
  });

  it('a DIRECT record that is never sent (a conflicting duplicate, or superseded under last-wins) claims no member set', async () => {
    /** Three users, three DIRECT records (NDJSON) and a message in k1 and in k2: both must arrive. */
    const importDms = async (name: string, duplicates: string, people: string[], dms: string[][]) => {
      const dir = join(f.dir, name);
      await writeInput(dir, 'users.csv', `id,username,display\n${people.map((p, i) => `u${i},${p},${p}`).join('\n')}\n`);
      await writeInput(dir, 'dms.ndjson', dms.map(([key, ...members]) => JSON.stringify({ key, members })).join('\n'));
      await writeInput(dir, 'm.csv', `id,channel,author,text\nm1,k1,${people[0]},one\nm2,k2,${people[1]},two\n`);
      const { config } = await writePipeline(dir, `name: ${name}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: dms.ndjson }, key: key, options: { duplicates: ${duplicates} }, mapping: { type: { const: DIRECT }, members: members } }
  messages: { source: { path: m.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }
`);
      return runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    };
    // reject: the second k1 is a conflict, so k2 is the only {ann, cy} channel.
    const first = await importDms('dm-unsent-reject', 'reject', ['us-ann', 'us-cy', 'us-bob'], [['k1', 'us-ann', 'us-bob'], ['k1', 'us-ann', 'us-cy'], ['k2', 'us-ann', 'us-cy']]);
    expect(first.stages.channels).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(first.stages.messages).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(first.verification?.status).toBe('exact');
    // last-wins: the first k1 is superseded by the last, so k2 is the only {dee, eve} channel.
    const second = await importDms('dm-unsent-last-wins', 'last-wins', ['lw-dee', 'lw-eve', 'lw-fay'], [['k1', 'lw-dee', 'lw-eve'], ['k2', 'lw-eve', 'lw-dee'], ['k1', 'lw-dee', 'lw-fay']]);
    expect(second.stages.channels).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(second.stages.messages).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(second.verification?.status).toBe('exact');
  });

  it('a DIRECT record whose members have this pipeline\'s channel of another key (an earlier run) is rejected naming that key', async () => {
    const dir = join(f.dir, 'id-dm-rekeyed');
    await writeInput(dir, 'users.csv', 'id,username,display\nu0,rk-ann,Ann\nu1,rk-bob,Bob\n');
    await writeInput(dir, 'm.csv', 'id,channel,author,text\nm1,k1,rk-ann,hello\n');
    const pipeline = `name: dm-rekeyed
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: dms.csv }, key: key, mapping: { type: { const: DIRECT }, members: { field: members, split: "|" } } }
  messages: { source: { path: m.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }
`;
    await writeInput(dir, 'dms.csv', 'key,members\nk1,rk-ann|rk-bob\n');
    const { config } = await writePipeline(dir, pipeline);
    expect((await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client })).status).toBe('succeeded');
    // The source now names the same conversation k2.
    await writeInput(dir, 'dms.csv', 'key,members\nk2,rk-bob|rk-ann\n');
    await writeInput(dir, 'm.csv', 'id,channel,author,text\nm2,k2,rk-bob,hi\n');
    const again = await writePipeline(dir, pipeline);
    const report = await runImport({ config: again.config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.channels).toMatchObject({ read: 1, imported: 0, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 1, imported: 0, rejected: 1 });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; reasons: Array<{ message: string }> });
    expect(rejects[0]!.reasons[0]!.message).toContain("is this pipeline's channel of source key k1");
  });

  it('takes over the channels it made before channels carried the pipeline id (same key and name), and no other', async () => {
    const legacy = await pipelineFolder('id-legacy', 'leg-', 6);
    // As an older chatport left them: users without properties, channels with the bare key only. A third
    // channel with key c1 but another name belongs to some other import: it is not this pipeline's.
    await runImport({ config: { ...legacy.config, stages: legacy.config.stages.filter((s) => s.stage === 'users') }, stateDir: join(legacy.dir, 'state-users') }, { client: f.client });
    const members = ['leg-user0', 'leg-user1'];
    const old = [
      { type: 'PUBLIC', name: 'leg-chan-0', members, properties: { [CHANNEL_KEY_PROPERTY]: 'c0' }, idempotencyKey: idempotencyKeyFor('id-legacy', 'channels', 'c0') },
      { type: 'PUBLIC', name: 'leg-other', members, properties: { [CHANNEL_KEY_PROPERTY]: 'c1' }, idempotencyKey: 'someone-else-c1' },
    ];
    const job = await f.client.imports.upload('channels', { bytes: Buffer.from(JSON.stringify(old)) });
    expect((await f.client.jobs.wait(job.id, { initialIntervalMs: 20 })).state).toBe('FINISHED');

    const report = await runImport({ config: legacy.config, stateDir: join(legacy.dir, 'state') }, { client: f.client });
    expect(report.status).toBe('succeeded');
    expect(await bodiesOf('leg-chan-0')).toEqual(['leg-message 0', 'leg-message 2', 'leg-message 4']);
    expect(await bodiesOf('leg-chan-1')).toEqual(['leg-message 1', 'leg-message 3', 'leg-message 5']);
    expect(await bodiesOf('leg-other')).toEqual([]);
    const byName = new Map((await all(f.client.channels.list({ pageSize: 100 }))).map((c) => [c.name, c.properties]));
    expect(byName.get('leg-chan-0')).toEqual({ [CHANNEL_KEY_PROPERTY]: 'c0', [PIPELINE_PROPERTY]: 'id-legacy' });
    expect(byName.get('leg-other')).toEqual({ [CHANNEL_KEY_PROPERTY]: 'c1' });
  });
});
