import { readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatportClient } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { all, messagesPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const pipeline = messagesPipeline;

/** 240 messages, 120 a channel: each channel's held messages take two pages of 100. */
const MESSAGES = Array.from({ length: 240 }, (_, i) => ({ id: `m${i}`, channel: `c${i % 2}`, text: `text ${i}`, tag: `t${i}` }));
type Row = (typeof MESSAGES)[number];
const messagesCsv = (p: string, rows: readonly Row[]) => `id,channel,author,text,tag\n${rows.map((r) => `${r.id},${r.channel},${p}-ann,${r.text},${r.tag}`).join('\n')}\n`;
/** m7's body changed to one of the same length, m8's to a longer one, m9's property. */
const corrected = (rows: readonly Row[]) =>
  rows.map((r) => (r.id === 'm7' ? { ...r, text: 'TEXT 7' } : r.id === 'm8' ? { ...r, text: 'text 8 corrected' } : r.id === 'm9' ? { ...r, tag: 'fixed' } : r));

async function setUp(p: string, mode: string) {
  const dir = join(f.dir, p);
  await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\nc1,${p}-random,${p}-ann\n`);
  await writeInput(dir, 'messages.csv', messagesCsv(p, MESSAGES));
  const { config } = await writePipeline(dir, pipeline(p, mode));
  const state = join(dir, 'state');
  const from = f.sandbox.requests().length;
  const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
  expect(first.verification?.status).toBe('exact');
  // A first import holds nothing to compare with: no channel's messages are read for it.
  expect(requestsSince(from).pages).toBe(0);
  await writeInput(dir, 'messages.csv', messagesCsv(p, corrected(MESSAGES)));
  return { dir, state };
}

/** The requests a run made, from the sandbox's record: message patches and channel message pages. */
function requestsSince(from: number) {
  const made = f.sandbox.requests().slice(from);
  return {
    patches: made.filter((r) => r.method === 'PATCH' && r.path.startsWith('/messages/')).length,
    pages: made.filter((r) => r.method === 'GET' && /^\/channels\/\d+\/messages$/.test(r.path)).length,
    uploads: made.filter((r) => r.method === 'POST' && r.path === '/imports/messages').length,
  };
}

async function platformMessages(p: string) {
  const channels = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.name?.startsWith(`${p}-`));
  const messages = [];
  for (const c of channels) messages.push(...(await all(f.client.channels.messages(c.id, { pageSize: 100 }))));
  return new Map(messages.map((m) => [m.properties?.chatportKey as string, m]));
}

async function changedLines(runDir: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(join(runDir, 'changed', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('messages corrected in the source since they were imported', () => {
  it('upsert patches each one to the source\'s content (same length, other length, properties), counts it updated, and verification says exact', async () => {
    const { dir, state } = await setUp('mcu', 'upsert');
    const { config } = await writePipeline(dir, pipeline('mcu', 'upsert'));
    const from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state, restart: true, verify: {} }, { client: f.client });
    expect(rerun.stages.messages).toMatchObject({ read: 240, imported: 240, updated: 3, changed: 0, skipped: 0, jobs: { submitted: 0 } });
    expect(rerun.totals).toMatchObject({ balanced: true });
    expect(rerun.verification?.status).toBe('exact');
    // Two pages a channel read the held messages; one patch a corrected message; nothing uploaded.
    expect(requestsSince(from)).toMatchObject({ patches: 3, uploads: 0 });
    const held = await platformMessages('mcu');
    expect([held.get('m7')?.body, held.get('m8')?.body, held.get('m9')?.properties?.tag]).toEqual(['TEXT 7', 'text 8 corrected', 'fixed']);
    const lines = await changedLines(rerun.runDir);
    expect(lines.map((l) => [l.sourceKey, l.applied, (l.differences as Array<{ field: string }>).map((d) => d.field)])).toEqual([
      ['m7', true, ['body']],
      ['m8', true, ['body']],
      ['m9', true, ['properties']],
    ]);

    // Unchanged since: nothing patched, and the held channels are read once each.
    const again = f.sandbox.requests().length;
    const unchanged = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(unchanged.stages.messages).toMatchObject({ read: 240, imported: 240, updated: 0, changed: 0 });
    expect(unchanged.verification?.status).toBe('exact');
    expect(requestsSince(again)).toMatchObject({ patches: 0, uploads: 0 });
    expect(requestsSince(again).pages).toBe(4);
  });

  it('insert reports them changed, not applied, and leaves the platform\'s copies as they were', async () => {
    const { dir, state } = await setUp('mci', 'upsert');
    const { config } = await writePipeline(dir, pipeline('mci', 'insert'));
    const from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state, restart: true }, { client: f.client });
    expect(rerun.stages.messages).toMatchObject({ read: 240, imported: 237, skipped: 3, changed: 3, updated: 0 });
    expect(rerun.totals).toMatchObject({ balanced: true });
    expect(requestsSince(from).patches).toBe(0);
    const held = await platformMessages('mci');
    expect([held.get('m7')?.body, held.get('m8')?.body, held.get('m9')?.properties?.tag]).toEqual(['text 7', 'text 8', 't9']);
    const lines = await changedLines(rerun.runDir);
    expect(lines.map((l) => [l.sourceKey, l.applied])).toEqual([['m7', false], ['m8', false], ['m9', false]]);
    expect(lines[0]).toMatchObject({ line: 9, differences: [{ field: 'body', platform: 'text 7', source: 'TEXT 7' }] });
  });

  it('a resumed upsert run compares with the snapshot of its first attempt and counts what the uninterrupted run would', async () => {
    const { dir, state } = await setUp('mcr', 'upsert');
    // New messages too, so that the rerun has import jobs to be interrupted after.
    const more = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, channel: `c${i % 2}`, text: `new ${i}`, tag: `n${i}` }));
    await writeInput(dir, 'messages.csv', messagesCsv('mcr', [...corrected(MESSAGES), ...more]));
    const { config } = await writePipeline(dir, pipeline('mcr', 'upsert'));
    const stop = new AbortController();
    const interrupted = await runImport({ config, stateDir: state, restart: true }, {
      client: f.client, signal: stop.signal,
      onProgress: (stage, c) => { if (stage === 'messages' && c.jobs.finished >= 1) stop.abort(new Error('stop')); },
    }).then(() => undefined, (e: unknown) => e);
    expect(interrupted).toBeInstanceOf(Error);
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(resumed.stages.messages).toMatchObject({ read: 300, imported: 300, updated: 3, changed: 0 });
    expect(resumed.verification?.status).toBe('exact');
  });
  it('a resume after a patch whose source change was undone meanwhile patches the message back, and counts one update', async () => {
    const { dir, state } = await setUp('mcb', 'upsert');
    const { config } = await writePipeline(dir, pipeline('mcb', 'upsert'));
    // The rerun dies right after its first patch (m7), as a kill would stop it.
    let patches = 0;
    const messages: ChatportClient['messages'] = {
      ...f.client.messages,
      update: (...args) => (patches++ === 0 ? f.client.messages.update(...args) : Promise.reject(new Error('killed'))),
    };
    const client = new Proxy(f.client, { get: (target, name) => (name === 'messages' ? messages : Reflect.get(target, name)) });
    await expect(runImport({ config, stateDir: state, restart: true }, { client })).rejects.toThrow('killed');
    expect((await platformMessages('mcb')).get('m7')?.body).toBe('TEXT 7');
    // The source is put back as it was first imported: the platform's m7 must go back too.
    await writeInput(dir, 'messages.csv', messagesCsv('mcb', MESSAGES));
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed).toMatchObject({ attempt: 2, verification: { status: 'exact' } });
    expect(resumed.stages.messages).toMatchObject({ read: 240, imported: 240, updated: 1, changed: 0 });
    expect((await platformMessages('mcb')).get('m7')?.body).toBe('text 7');
  });

  it('with a key table of 16 keys in memory the held keys spill to disk, and exactly the corrected messages are patched', async () => {
    const { dir, state } = await setUp('mcs', 'upsert');
    const { config } = await writePipeline(dir, pipeline('mcs', 'upsert'));
    let runDir = '';
    let spilledRuns = 0;
    const from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state, restart: true, verify: {} }, {
      client: f.client, heldKeysInMemory: 16,
      onRunStarted: (d) => { runDir = d; },
      // The stage's last progress comes before its held records close (which removes the spilled runs).
      onProgress: (stage) => { if (stage === 'messages') spilledRuns = readdirSync(join(runDir, 'held', 'messages-keys')).length; },
    });
    expect(spilledRuns).toBeGreaterThan(0);
    expect(rerun.stages.messages).toMatchObject({ read: 240, imported: 240, updated: 3, changed: 0, jobs: { submitted: 0 } });
    expect(rerun.verification?.status).toBe('exact');
    expect(requestsSince(from)).toMatchObject({ patches: 3, uploads: 0, pages: 4 });
    expect((await changedLines(rerun.runDir)).map((l) => l.sourceKey)).toEqual(['m7', 'm8', 'm9']);
    // One line a held message, on disk.
    expect((await readFile(join(rerun.runDir, 'held', 'messages', 'lines.tsv'), 'utf8')).trim().split('\n')).toHaveLength(240);
  });

  it('a snapshot cut short is read again; a complete one is reused by a resumed run, which reads no channel', async () => {
    const { dir, state } = await setUp('mcw', 'upsert');
    const more = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, channel: `c${i % 2}`, text: `new ${i}`, tag: `n${i}` }));
    await writeInput(dir, 'messages.csv', messagesCsv('mcw', [...corrected(MESSAGES), ...more]));
    const { config } = await writePipeline(dir, pipeline('mcw', 'upsert'));
    // Attempt 1 fails after 150 held messages, in the middle of the snapshot.
    const failing = clientFailingAfter(150);
    let cutDir = '';
    const cut = await runImport({ config, stateDir: state, restart: true }, { client: failing, onRunStarted: (d) => { cutDir = d; } }).then(() => undefined, (e: unknown) => e);
    expect(cut).toBeInstanceOf(Error);
    expect(readdirSync(join(cutDir, 'held'))).not.toContain('messages');
    // Attempt 2 reads the held messages again in full, and is stopped once a job of new messages finished.
    const stop = new AbortController();
    let from = f.sandbox.requests().length;
    let runDir = '';
    const stopped = await runImport({ config, stateDir: state }, {
      client: f.client, signal: stop.signal, onRunStarted: (d) => { runDir = d; },
      onProgress: (stage, c) => { if (stage === 'messages' && c.jobs.finished >= 1) stop.abort(new Error('stop')); },
    }).then(() => undefined, (e: unknown) => e);
    expect(stopped).toBeInstanceOf(Error);
    expect(requestsSince(from).pages).toBe(4);
    expect(runDir).toBe(cutDir);
    // Attempt 3 compares with attempt 2's snapshot file, unchanged, and reads no channel's messages.
    const snapshot = join(runDir, 'held', 'messages', 'lines.tsv');
    const before = await stat(snapshot);
    from = f.sandbox.requests().length;
    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed).toMatchObject({ status: 'succeeded', attempt: 3 });
    expect(requestsSince(from).pages).toBe(0);
    expect(resumed.stages.messages).toMatchObject({ read: 300, imported: 300, updated: 3, changed: 0 });
    expect((await stat(snapshot)).mtimeMs).toBe(before.mtimeMs);
    expect((await platformMessages('mcw')).get('m8')?.body).toBe('text 8 corrected');
  });
});

describe('a sharded re-run', () => {
  it('reads the held messages of its own channels only, and patches the corrected ones among them', async () => {
    const { dir, state } = await setUp('mch', 'upsert');
    const { config } = await writePipeline(dir, pipeline('mch', 'upsert'));
    // A shard count that puts c0 and c1 in different shards; the shard of c0 (m8 is its corrected message).
    const count = [2, 3, 4, 5, 6, 7, 8].find((n) => shardOfKey('c0', n) !== shardOfKey('c1', n))!;
    config.shard = { index: shardOfKey('c0', count), count };
    const from = f.sandbox.requests().length;
    const shard = await runImport({ config, stateDir: state }, { client: f.client });
    expect(shard.stages.messages).toMatchObject({ read: 120, imported: 120, updated: 1 });
    expect(requestsSince(from)).toMatchObject({ pages: 2, patches: 1, uploads: 0 });
  });
});

/** The sandbox's client, whose channel message reads fail once `n` messages were read. */
function clientFailingAfter(n: number): ChatportClient {
  let read = 0;
  const channels = f.client.channels;
  return {
    ...f.client,
    channels: {
      ...channels,
      async *messages(id, options) {
        for await (const m of channels.messages(id, options)) {
          if (++read > n) throw new Error('connection lost');
          yield m;
        }
      },
    },
  };
}

describe('a long body split into parts (longBodies: split), corrected to another number of parts', () => {
  const splitPipeline = (name: string, mode: string) => pipeline(name, mode).replace('    channel: channel\n', '    channel: channel\n    options: { longBodies: split }\n');
  /** `chars` characters in words of five: 100,000 make three parts (40,000 each at most), 50,000 two. */
  const words = (chars: number) => 'abcd '.repeat(chars / 5);
  const rowsWith = (m1: string) => [
    { id: 'm0', channel: 'c0', text: 'first', tag: 't0' },
    { id: 'm1', channel: 'c0', text: m1, tag: 't1' },
    { id: 'm2', channel: 'c0', text: 'last', tag: 't2' },
  ];

  /** `before` imported (m1 in three parts), then the source changed to `after` (m1's body `after` when a string). */
  async function setUpParts(p: string, after: string | Row[], before: Row[] = rowsWith(words(100_000))) {
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
    await writeInput(dir, 'messages.csv', messagesCsv(p, before));
    const { config } = await writePipeline(dir, splitPipeline(p, 'upsert'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ read: before.length + 2, imported: before.length + 2 });
    expect(first.verification?.status).toBe('exact');
    await writeInput(dir, 'messages.csv', messagesCsv(p, typeof after === 'string' ? rowsWith(after) : after));
    return { dir, state };
  }

  /** m1 changed to `after`, run again with mode: insert, which patches, deletes and uploads nothing. */
  async function rerunInsert(p: string, after: string) {
    const { dir, state } = await setUpParts(p, after);
    const { config } = await writePipeline(dir, splitPipeline(p, 'insert'));
    const from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state }, { client: f.client });
    expect(rerun.totals).toMatchObject({ balanced: true });
    expect({ ...requestsSince(from), deletes: deletesSince(from) }).toMatchObject({ patches: 0, uploads: 0, deletes: 0 });
    expect(await keysHeld(p)).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm2']);
    return rerun;
  }

  /** The sandbox's client whose first delete reaches the platform, and the run dies before its answer is used. */
  function clientKilledAfterDelete(): ChatportClient {
    const messages: ChatportClient['messages'] = {
      ...f.client.messages,
      delete: async (...args) => {
        await f.client.messages.delete(...args);
        throw new Error('killed');
      },
    };
    return new Proxy(f.client, { get: (target, name) => (name === 'messages' ? messages : Reflect.get(target, name)) });
  }

  const deletesSince = (from: number) => f.sandbox.requests().slice(from).filter((r) => r.method === 'DELETE' && r.path.startsWith('/messages/')).length;
  const keysHeld = async (p: string) => [...(await platformMessages(p)).keys()].sort();

  it('an update the platform refuses rejects the record and deletes none of its parts', async () => {
    const { dir, state } = await setUpParts('spr', words(50_000));
    const { config } = await writePipeline(dir, splitPipeline('spr', 'upsert'));
    const from = f.sandbox.requests().length;
    f.sandbox.setFaults([{ method: 'PATCH', path: '/messages/**', fault: { kind: 'status', status: 400 } }]);
    try {
      const rerun = await runImport({ config, stateDir: state }, { client: f.client });
      expect(rerun.stages.messages).toMatchObject({ read: 4, imported: 2, updated: 0, rejected: 2 });
      expect(rerun.totals).toMatchObject({ balanced: true });
    } finally {
      f.sandbox.setFaults([]);
    }
    expect(deletesSince(from)).toBe(0);
    expect(await keysHeld('spr')).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm2']);
  });

  it('upsert deletes the parts beyond the new count, lists them with the record, and verification is exact', async () => {
    const { dir, state } = await setUpParts('spu', words(50_000));
    const { config } = await writePipeline(dir, splitPipeline('spu', 'upsert'));
    let from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    // The removed part is no source record: four read, the two parts left patched (their count changed).
    expect(rerun.stages.messages).toMatchObject({ read: 4, imported: 4, updated: 2, skipped: 0, changed: 0, jobs: { submitted: 0 } });
    expect(rerun.totals).toMatchObject({ balanced: true });
    expect(rerun.verification?.status).toBe('exact');
    expect(deletesSince(from)).toBe(1);
    expect(await keysHeld('spu')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    const lines = await changedLines(rerun.runDir);
    expect(lines.map((l) => [l.sourceKey, l.applied, (l.surplusParts as Array<{ sourceKey: string }> | undefined)?.map((s) => s.sourceKey)])).toEqual([
      ['m1', true, ['m1#3']],
      ['m1#2', true, undefined],
    ]);

    // Corrected again, to one part: the second goes too.
    await writeInput(dir, 'messages.csv', messagesCsv('spu', rowsWith('short now')));
    from = f.sandbox.requests().length;
    const shorter = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(shorter.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 1 });
    expect(shorter.verification?.status).toBe('exact');
    expect(deletesSince(from)).toBe(1);
    expect(await keysHeld('spu')).toEqual(['m0', 'm1', 'm2']);
    expect((await platformMessages('spu')).get('m1')?.properties).toEqual({ chatportKey: 'm1', tag: 't1' });

    // Converged: nothing to patch or delete.
    from = f.sandbox.requests().length;
    const again = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(again.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 0 });
    expect(again.verification?.status).toBe('exact');
    expect(deletesSince(from)).toBe(0);
  });

  it('insert lists the parts beyond the new count with the record, changed, not applied, and deletes nothing', async () => {
    const rerun = await rerunInsert('spi', words(50_000));
    expect(rerun.stages.messages).toMatchObject({ read: 4, imported: 2, skipped: 2, changed: 2, updated: 0 });
    const [m1] = await changedLines(rerun.runDir);
    expect(m1).toMatchObject({ sourceKey: 'm1', applied: false, surplusParts: [{ sourceKey: 'm1#3' }] });
  });

  it('a run killed right after a delete is resumed to the same end: the delete found done, the same counts and list', async () => {
    const { dir, state } = await setUpParts('spk', 'short now');
    const { config } = await writePipeline(dir, splitPipeline('spk', 'upsert'));
    await expect(runImport({ config, stateDir: state }, { client: clientKilledAfterDelete() })).rejects.toThrow('killed');
    expect(await keysHeld('spk')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed).toMatchObject({ attempt: 2, verification: { status: 'exact' } });
    expect(resumed.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 1, changed: 0 });
    expect(await keysHeld('spk')).toEqual(['m0', 'm1', 'm2']);
    const [m1] = await changedLines(resumed.runDir);
    expect(m1).toMatchObject({ sourceKey: 'm1', applied: true, surplusParts: [{ sourceKey: 'm1#2' }, { sourceKey: 'm1#3' }] });
  });

  it('a run killed after a delete, resumed with the source changed back: the deleted part is rejected, not counted held', async () => {
    const { dir, state } = await setUpParts('spb', words(50_000));
    const { config } = await writePipeline(dir, splitPipeline('spb', 'upsert'));
    await expect(runImport({ config, stateDir: state }, { client: clientKilledAfterDelete() })).rejects.toThrow('killed');
    expect(await keysHeld('spb')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    // The correction is undone before the resume: m1 takes three parts again, as the snapshot holds it.
    await writeInput(dir, 'messages.csv', messagesCsv('spb', rowsWith(words(100_000))));
    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.stages.messages).toMatchObject({ read: 5, imported: 4, rejected: 1 });
    const rejects = (await readFile(join(resumed.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ field: string }> });
    expect(rejects.map((r) => r.key)).toEqual(['m1#3']);
  });

  it('a source record whose own key is an old part\'s (m1#2), read before m1 corrected to one part: patched, never deleted', async () => {
    const after = [{ id: 'm1#2', channel: 'c0', text: 'a record of its own', tag: 't9' }, ...rowsWith('short now')];
    const { dir, state } = await setUpParts('spn', after);
    const { config } = await writePipeline(dir, splitPipeline('spn', 'upsert'));
    const rerun = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(await keysHeld('spn')).toContain('m1#2');
    expect((await platformMessages('spn')).get('m1#2')?.body).toBe('a record of its own');
    expect(rerun.stages.messages).toMatchObject({ read: 4, imported: 4 });
  });

  it('a record moved to another channel and corrected to more parts is rejected whole: no added part is sent alone', async () => {
    const moved = rowsWith(words(150_000)).map((r) => (r.id === 'm1' ? { ...r, channel: 'c1' } : r));
    const { dir, state } = await setUpParts('spv', moved);
    await writeInput(dir, 'channels.csv', 'key,name,members\nc0,spv-general,spv-ann\nc1,spv-random,spv-ann\n');
    const { config } = await writePipeline(dir, splitPipeline('spv', 'upsert'));
    const from = f.sandbox.requests().length;
    const rerun = await runImport({ config, stateDir: state }, { client: f.client });
    expect(rerun.stages.messages).toMatchObject({ read: 6, imported: 2, rejected: 4, jobs: { submitted: 0 } });
    expect(requestsSince(from).uploads).toBe(0);
    const rejects = (await readFile(join(rerun.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ field: string }> });
    expect(rejects.map((r) => [r.key, r.reasons[0]!.field])).toEqual([['m1', 'channel'], ['m1#2', 'channel'], ['m1#3', 'channel'], ['m1#4', 'channel']]);
    expect(await keysHeld('spv')).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm2']);
  });

  it('a key seen again with another body in another number of parts: the whole record is rejected (or skipped), no part sent alone', async () => {
    const importTwice = async (p: string, duplicates: string, earlier: string, later: string) => {
      const dir = join(f.dir, p);
      await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
      await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
      await writeInput(dir, 'messages.csv', messagesCsv(p, [...rowsWith(earlier), { id: 'm1', channel: 'c0', text: later, tag: 't1' }]));
      const { config } = await writePipeline(dir, splitPipeline(p, 'upsert').replace('mode: upsert }', `mode: upsert, duplicates: ${duplicates} }`));
      return runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    };
    // reject: the later m1 (three parts) is rejected, its third part too, though no earlier record has its key.
    const rejected = await importTwice('spr', 'reject', words(50_000), `X${words(100_000).slice(1)}`);
    expect(rejected.stages.messages).toMatchObject({ read: 7, imported: 4, rejected: 3 });
    expect(rejected.totals.balanced).toBe(true);
    expect(rejected.verification?.status).toBe('exact');
    expect(await keysHeld('spr')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    // last-wins: the earlier m1 (three parts) is skipped, its third part too, though no later record has its key.
    const superseded = await importTwice('spw', 'last-wins', words(100_000), `X${words(50_000).slice(1)}`);
    expect(superseded.stages.messages).toMatchObject({ read: 7, imported: 4, skipped: 3 });
    expect(superseded.totals.balanced).toBe(true);
    expect(superseded.verification?.status).toBe('exact');
    expect(await keysHeld('spw')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    expect((await platformMessages('spw')).get('m1')?.body).toMatch(/^X/);
  });

  it('finds parts left behind a first part already patched to the new count (an older version deleted none)', async () => {
    const { dir, state } = await setUpParts('spo', words(50_000));
    const { config } = await writePipeline(dir, splitPipeline('spo', 'upsert'));
    // A run that patches but never deletes, as versions before this fix did.
    const messages: ChatportClient['messages'] = { ...f.client.messages, delete: () => Promise.resolve({} as Awaited<ReturnType<ChatportClient['messages']['delete']>>) };
    const client = new Proxy(f.client, { get: (target, name) => (name === 'messages' ? messages : Reflect.get(target, name)) });
    await runImport({ config, stateDir: state }, { client });
    expect(await keysHeld('spo')).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm2']);
    const rerun = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(rerun.stages.messages).toMatchObject({ read: 4, imported: 4, updated: 1 });
    expect(rerun.verification?.status).toBe('exact');
    expect(await keysHeld('spo')).toEqual(['m0', 'm1', 'm1#2', 'm2']);
    expect(await changedLines(rerun.runDir)).toMatchObject([{ sourceKey: 'm1', applied: true, differences: [], surplusParts: [{ sourceKey: 'm1#3' }] }]);
  });

  it('a correction to more parts: sent where they land in place; rejected, every part, when later messages follow the held ones', async () => {
    // m1 is its channel's last message: the added parts and a new m2 after them append in place.
    const { dir, state } = await setUpParts('spg', rowsWith(words(150_000)), rowsWith(words(100_000)).slice(0, 2));
    const { config } = await writePipeline(dir, splitPipeline('spg', 'upsert'));
    const grown = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(grown.stages.messages).toMatchObject({ read: 6, imported: 6, updated: 3, rejected: 0 });
    expect(grown.verification?.status).toBe('exact');
    expect(await keysHeld('spg')).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm1#4', 'm2']);

    // m2 follows m1's three parts: a fourth would land after m2.
    const { dir: dir2, state: state2 } = await setUpParts('spf', words(150_000));
    const { config: config2 } = await writePipeline(dir2, splitPipeline('spf', 'upsert'));
    const from = f.sandbox.requests().length;
    const refused = await runImport({ config: config2, stateDir: state2 }, { client: f.client });
    expect(refused.stages.messages).toMatchObject({ read: 6, imported: 2, rejected: 4, updated: 0 });
    expect(refused.totals).toMatchObject({ balanced: true });
    expect(requestsSince(from)).toMatchObject({ patches: 0, uploads: 0 });
    expect(await keysHeld('spf')).toEqual(['m0', 'm1', 'm1#2', 'm1#3', 'm2']);
    const rejects = (await readFile(join(refused.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.key, r.reasons[0]!.field])).toEqual([['m1', 'body'], ['m1#2', 'body'], ['m1#3', 'body'], ['m1#4', 'body']]);
    expect(rejects[0]!.reasons[0]!.message).toContain('the platform holds 3, followed by later messages');
  });

  it('insert sends none of the added parts of a message held with fewer: changed, not applied', async () => {
    const rerun = await rerunInsert('spa', words(150_000));
    expect(rerun.stages.messages).toMatchObject({ read: 6, imported: 2, skipped: 4, changed: 4, updated: 0 });
    expect((await changedLines(rerun.runDir)).map((l) => [l.sourceKey, l.applied, l.id === undefined])).toEqual([
      ['m1', false, false],
      ['m1#2', false, false],
      ['m1#3', false, false],
      ['m1#4', false, true],
    ]);
  });
});
