import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { compareInt64, type Int64 } from '../../src/shared/int64.js';
import { parseJsonExact } from '../../src/shared/lossless-json.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

/**
 * Integer ids beyond 2^53: in the source (snowflakes, int64 database ids), where JSON.parse would round two
 * keys into one, and on the wire (a sandbox whose every id is above 2^53), where a number cannot hold them.
 */

/** 2^53 and 2^53+1 round to the same double, as do the two snowflakes. */
const MESSAGE_KEYS = ['9007199254740992', '9007199254740993', '9007199254740994', '1100000000000000001', '1100000000000000002'];
const CHANNEL_KEYS = ['1200000000000000001', '1200000000000000002'];

const ndjson = (records: string[]) => `${records.join('\n')}\n`;

/** Users, channels (snowflake keys), members and messages (int64 keys) as NDJSON, with names under `prefix`. */
async function writeSources(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.ndjson', ndjson([1, 2, 3].map((u) => `{"id":900719925474099${u}000,"username":"${prefix}user${u}"}`)));
  await writeInput(dir, 'channels.ndjson', ndjson(CHANNEL_KEYS.map((k, c) => `{"id":${k},"name":"${prefix}chan-${c}","members":["${prefix}user1","${prefix}user2"]}`)));
  await writeInput(dir, 'members.ndjson', ndjson(CHANNEL_KEYS.map((k) => `{"channel":${k},"user":"${prefix}user3"}`)));
  await writeInput(
    dir,
    'messages.ndjson',
    ndjson([
      ...MESSAGE_KEYS.map((k, i) => `{"id":${k},"channel":${CHANNEL_KEYS[i % 2]},"author":"${prefix}user${(i % 3) + 1}","text":"message ${k}"}`),
      // Bad on purpose: no text. Its reject must name its exact key and line.
      `{"id":9007199254740995,"channel":${CHANNEL_KEYS[0]},"author":"${prefix}user1"}`,
    ]),
  );
}

const PIPELINE = (name: string) => `name: ${name}
options: { chunkRecords: 2, concurrency: 2, lanes: 2 }
stages:
  users:
    source: { path: users.ndjson }
    key: id
    mapping: { name: username, displayName: username, isGuest: { const: false }, properties: { sourceId: id } }
  channels:
    source: { path: channels.ndjson }
    key: id
    mapping: { type: { const: PUBLIC }, name: name, members: members }
  members:
    source: { path: members.ndjson }
    key: [channel, user]
    channel: channel
    mapping: { username: user }
  messages:
    source: { path: messages.ndjson }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author, properties: { sourceId: id } }
`;

/** Every message on the platform per channel name, in id order: [sourceId, body, channelId]. */
async function platformMessages(f: ImportFixture, prefix: string): Promise<Map<string, Array<{ sourceId: unknown; body: string | undefined; channelId: Int64 | undefined }>>> {
  const out = new Map<string, Array<{ sourceId: unknown; body: string | undefined; channelId: Int64 | undefined }>>();
  for (const channel of await all(f.client.channels.list())) {
    if (!channel.name.startsWith(prefix)) continue;
    const messages = (await all(f.client.channels.messages(channel.id))).sort((a, b) => compareInt64(a.id, b.id));
    for (const m of messages) expect(m.channelId).toBe(channel.id);
    out.set(channel.name, messages.map((m) => ({ sourceId: m.properties?.sourceId, body: m.body, channelId: m.channelId })));
  }
  return out;
}

const EXPECTED_BY_CHANNEL = (prefix: string) =>
  new Map([
    [`${prefix}chan-0`, [MESSAGE_KEYS[0], MESSAGE_KEYS[2], MESSAGE_KEYS[4]]],
    [`${prefix}chan-1`, [MESSAGE_KEYS[1], MESSAGE_KEYS[3]]],
  ]);

async function prepare(f: ImportFixture, prefix: string) {
  const dir = join(f.dir, prefix);
  await writeSources(dir, prefix);
  const { config } = await writePipeline(dir, PIPELINE(prefix));
  return { config, dir, stateDir: join(dir, 'state') };
}

/** Runs the import and checks the report, the reject and what the platform holds, ids compared exactly. */
async function importAndCheck(f: ImportFixture, run: Awaited<ReturnType<typeof prepare>>, prefix: string) {
  const report = await runImport({ config: run.config, stateDir: run.stateDir }, { client: f.client });

  expect(report.status).toBe('completed-with-rejects');
  expect(report.stages.users).toMatchObject({ read: 3, imported: 3, rejected: 0 });
  expect(report.stages.channels).toMatchObject({ read: 2, imported: 2, rejected: 0 });
  expect(report.stages.members).toMatchObject({ read: 2, imported: 2, rejected: 0 });
  expect(report.stages.messages).toMatchObject({ read: 6, imported: 5, rejected: 1 });

  const rejectsText = await readFile(report.rejectsFile!, 'utf8');
  const rejects = rejectsText.trim().split('\n').map((l) => parseJsonExact(l, 'bigint') as { stage: string; line: number; reasons: Array<{ field: string }> });
  expect(rejects).toHaveLength(1);
  expect(rejects[0]).toMatchObject({ stage: 'messages', line: 6, reasons: [{ field: 'body' }] });
  // The reject carries the record as read: its key exact.
  expect(rejectsText).toContain('"id":9007199254740995');

  const byChannel = await platformMessages(f, prefix);
  const expected = EXPECTED_BY_CHANNEL(prefix);
  expect([...byChannel.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [name, keys] of expected) {
    expect(byChannel.get(name)!.map((m) => m.sourceId)).toEqual(keys.map((k) => BigInt(k!)));
    expect(byChannel.get(name)!.map((m) => m.body)).toEqual(keys.map((k) => `message ${k}`));
  }
  const users = (await all(f.client.users.list())).filter((u) => u.name.startsWith(prefix));
  // An untyped JSON number stays a number on the platform, every digit kept (the client reads it as a bigint).
  expect(users.map((u) => u.properties?.sourceId).sort()).toEqual([9007199254740991000n, 9007199254740992000n, 9007199254740993000n]);
  return report;
}

describe('source keys beyond 2^53', () => {
  let f: ImportFixture;
  beforeAll(async () => {
    f = await startImportFixture();
  });
  afterAll(() => f.close());

  it('imports every record whose key JSON.parse would round into another: distinct keys, exact text, exact reject', async () => {
    await importAndCheck(f, await prepare(f, 'src53-'), 'src53-');
  });
});

describe('a platform whose ids are all beyond 2^53', () => {
  const ID_BASE = 2n ** 53n + 1000n;
  let f: ImportFixture;
  beforeAll(async () => {
    f = await startImportFixture({ idBase: ID_BASE });
  });
  afterAll(() => f.close());

  it('imports users, channels, members and messages, resumed from its channel-id cache: every id exact on the wire, in the cache, the chunks and the journal', async () => {
    const run = await prepare(f, 'wire53-');
    // The first attempt stops at the messages upload, after the channel ids were resolved and cached.
    f.sandbox.setFaults([{ method: 'POST', path: '/imports/messages', fault: { kind: 'status', status: 400 } }]);
    const first = await runImport({ config: run.config, stateDir: run.stateDir }, { client: f.client }).then(
      () => 'finished',
      (error: unknown) => error,
    );
    expect(first).not.toBe('finished');
    f.sandbox.setFaults([]);
    const cacheBefore = await readFile(join(run.stateDir, 'runs', (await readdir(join(run.stateDir, 'runs')))[0]!, 'channel-ids.json'), 'utf8');

    const report = await importAndCheck(f, run, 'wire53-');
    expect(report.attempt).toBe(2);
    const channels = (await all(f.client.channels.list())).filter((c) => c.name.startsWith('wire53-'));
    for (const c of channels) expect(typeof c.id === 'bigint' && c.id > ID_BASE).toBe(true);

    // The resumed run read the cache of the first attempt: exact ids, written as JSON digits.
    const cacheText = await readFile(join(report.runDir, 'channel-ids.json'), 'utf8');
    expect(cacheText).toBe(cacheBefore);
    expect(parseJsonExact(cacheText, 'bigint')).toEqual(Object.fromEntries(channels.map((c) => [String(c.properties?.chatportKey), c.id])));

    // Members went to the right channels through /imports/channels/{id}/members.
    for (const c of channels) expect((await all(f.client.channels.members(c.id))).map((u) => u.name).sort()).toEqual(['wire53-user1', 'wire53-user2', 'wire53-user3']);

    // Message chunks name their channel by exact JSON digits (the import item's channelId is an int64).
    const chunkDir = join(report.runDir, 'chunks', 'messages');
    const chunkText = (await Promise.all((await readdir(chunkDir)).map((n) => readFile(join(chunkDir, n), 'utf8')))).join('');
    for (const c of channels) expect(chunkText).toContain(`"channelId":${c.id}`);

    // Job ids in the journal are exact: each names a job the platform knows.
    const jobIds = (await readFile(join(run.stateDir, 'journal.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => parseJsonExact(l, 'bigint') as { t: string; jobId?: Int64 })
      .filter((e) => e.t === 'part-ended')
      .map((e) => e.jobId!);
    expect(jobIds.length).toBeGreaterThan(0);
    for (const id of jobIds) {
      expect(typeof id).toBe('bigint');
      expect((await f.client.jobs.get(id)).state).toBe('FINISHED');
    }
  });
});
