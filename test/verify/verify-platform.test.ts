import type { Int64 } from '../../src/shared/int64.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonBody, createMergePatchBody } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { formatReportTable } from '../../src/pipeline/report.js';
import { formatVerification, runVerify, type Difference } from '../../src/pipeline/verify/index.js';
import { all, generateCsvs, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture, writeCsvs } from '../import/support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const FAST_EXPORT = { exportWait: { pollIntervalMs: 20, timeoutMs: 120_000 } };

/** One API call through the client's escape hatch (the operations verification itself never makes). */
async function api(path: string, init: { method: 'DELETE' | 'POST' | 'PATCH'; body?: Record<string, unknown> }): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = init.body === undefined ? undefined : init.method === 'PATCH' ? createMergePatchBody(init.body) : createJsonBody(init.body);
  const response = await f.client.send({ operation: `${init.method} ${path}`, method: init.method, path, retry: 'never', ...(body ? { body } : {}) });
  const text = await response.body.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Imports a generated pipeline (names prefixed, so pipelines sharing the sandbox do not collide). */
async function importGenerated(name: string, counts: { users: number; channels: number; messages: number }) {
  const dir = join(f.dir, name);
  const csv = generateCsvs(counts, `${name}-`);
  await writeCsvs(dir, csv);
  const { config } = await writePipeline(dir, generatedPipeline(name), f.env);
  const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
  expect(report.status).toBe('succeeded');
  return { dir, config, report, csv };
}

async function channelIdOf(name: string): Promise<Int64> {
  const channel = (await all(f.client.channels.list())).find((c) => c.name === name);
  return channel!.id;
}

async function messageWithBody(channelName: string, body: string) {
  const messages = await all(f.client.channels.messages(await channelIdOf(channelName), { pageSize: 100 }));
  return messages.find((m) => m.body === body)!;
}

const brief = (d: Difference) => ({ kind: d.kind, stage: d.stage, sourceKey: d.sourceKey, line: d.position?.line, channelKey: d.channelKey, foundIn: d.foundIn, fields: d.fields });

describe('verification against the sandbox', () => {
  it('a clean import verifies exact, per stage, with a full-content sample', async () => {
    const { config, report } = await importGenerated('clean', { users: 4, channels: 3, messages: 30 });
    const result = await runVerify({ config, sample: 5, rejectsFiles: [report.rejectsFile!], outDir: report.runDir, ...FAST_EXPORT }, { client: f.client });
    expect(result.differences).toEqual([]);
    expect(result.summary).toMatchObject({
      status: 'exact',
      contentChecked: 5,
      stages: {
        users: { expected: 4, verified: 4 },
        channels: { expected: 3, verified: 3 },
        members: { expected: 12, verified: 12 },
        messages: { expected: 30, verified: 30 },
      },
    });
    const written = JSON.parse(await readFile(join(report.runDir, 'verify.json'), 'utf8')) as { status: string };
    expect(written.status).toBe('exact');
  });

  it('names a deleted, a moved and an edited message by source key and line, and nothing else', async () => {
    const { config } = await importGenerated('three', { users: 3, channels: 3, messages: 30 });
    // m4 (line 6) deleted from channel c1; m9 (line 11) moved from c0 into c2; m20 (line 22) edited in c2.
    const deleted = await messageWithBody('three-chan-1', 'message number 4');
    expect((await api(`/messages/${deleted.id}`, { method: 'DELETE' })).status).toBe(200);
    const moved = await messageWithBody('three-chan-0', 'message number 9');
    expect((await api(`/messages/${moved.id}`, { method: 'DELETE' })).status).toBe(200);
    const resent = await api(`/channels/${await channelIdOf('three-chan-2')}/messages`, { method: 'POST', body: { type: 'TEXT', body: moved.body, user: { username: moved.user!.name }, properties: moved.properties } });
    expect(resent.status).toBe(200);
    const edited = await messageWithBody('three-chan-2', 'message number 20');
    const patched = await api(`/messages/${edited.id}`, { method: 'PATCH', body: { body: 'message number 20, edited' }});
    expect(patched.status).toBe(200);

    const result = await runVerify({ config, ...FAST_EXPORT }, { client: f.client });
    expect(result.summary.status).toBe('differences');
    expect(result.differences.map(brief)).toEqual([
      { kind: 'missing', stage: 'messages', sourceKey: 'm4', line: 6, channelKey: 'c1', foundIn: undefined, fields: undefined },
      { kind: 'misplaced', stage: 'messages', sourceKey: 'm9', line: 11, channelKey: 'c0', foundIn: 'c2', fields: undefined },
      { kind: 'changed', stage: 'messages', sourceKey: 'm20', line: 22, channelKey: 'c2', foundIn: undefined, fields: ['body'] },
    ]);
    expect(result.summary.counts).toEqual({ missing: 1, extra: 0, misplaced: 1, 'out-of-order': 0, changed: 1 });
    expect(result.summary.stages.messages).toMatchObject({ expected: 30, verified: 27 });
    expect(result.differences[0]!.message).toMatch(/message m4 \(.*messages\.csv:6\) is not in channel c1/);
  });

  it('an edit that keeps the body length is found through lastEditedTime and a full read', async () => {
    const { config } = await importGenerated('samelen', { users: 2, channels: 2, messages: 10 });
    const edited = await messageWithBody('samelen-chan-1', 'message number 3');
    await api(`/messages/${edited.id}`, { method: 'PATCH', body: { body: 'MESSAGE NUMBER 3' }});
    const result = await runVerify({ config, ...FAST_EXPORT }, { client: f.client });
    expect(result.differences.map(brief)).toEqual([{ kind: 'changed', stage: 'messages', sourceKey: 'm3', line: 5, channelKey: 'c1', foundIn: undefined, fields: ['body'] }]);
  });

  it('edits that keep the length are all read, also past the reads that pin down differences (maxPinned)', async () => {
    const { config } = await importGenerated('manyedits', { users: 2, channels: 2, messages: 10 });
    for (const n of [3, 5, 6]) {
      const edited = await messageWithBody(`manyedits-chan-${n % 2}`, `message number ${n}`);
      await api(`/messages/${edited.id}`, { method: 'PATCH', body: { body: `MESSAGE NUMBER ${n}` } });
    }
    const result = await runVerify({ config, maxPinned: 1, ...FAST_EXPORT }, { client: f.client });
    expect(result.summary.status).toBe('differences');
    expect(result.differences.map((d) => [d.kind, d.sourceKey, d.fields])).toEqual([['changed', 'm3', ['body']], ['changed', 'm5', ['body']], ['changed', 'm6', ['body']]]);
    expect(result.summary.stages.messages).toMatchObject({ expected: 10, verified: 7 });
  });

  it('two messages of one author and length swapped (deleted, sent again): past the sample, the output says what was compared only by token', async () => {
    const { config } = await importGenerated('swap', { users: 2, channels: 1, messages: 7 });
    const held = await all(f.client.channels.messages(await channelIdOf('swap-chan-0'), { pageSize: 100 }));
    const [m4, m5, m6] = held.slice(4);
    for (const m of [m4!, m5!, m6!]) await api(`/messages/${m.id}`, { method: 'DELETE' });
    for (const m of [m6!, m5!, m4!]) await api(`/channels/${m.channelId}/messages`, { method: 'POST', body: { type: 'TEXT', body: m.body, user: { username: m.user!.name }, properties: m.properties } });
    const tokensOnly = await runVerify({ config, sample: 0, ...FAST_EXPORT }, { client: f.client });
    expect(tokensOnly.summary.sample).toEqual({ picked: 0, of: 7 });
    expect(formatVerification(tokensOnly.summary, tokensOnly.differences)).toMatch(
      /^verification: exact by author, type, body length and order\n {2}7 of 7 message\(s\) not read in full \(verify --sample N reads more\)\n/,
    );
    const whole = await runVerify({ config, sample: 10, ...FAST_EXPORT }, { client: f.client });
    expect(whole.differences.map((d) => [d.kind, d.sourceKey])).toEqual([['changed', 'm4'], ['changed', 'm6']]);
    expect(whole.summary.sample).toEqual({ picked: 7, of: 7 });
  });

  it('a missing user and an extra member', async () => {
    const dir = join(f.dir, 'people');
    await writeInput(dir, 'users.csv', 'id,username,display\nu0,people-ann,Ann\nu1,people-ben,Ben\nu2,people-cid,Cid\nu3,people-dot,Dot\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc0,people-a,people-ann|people-ben\nc1,people-b,people-ben|people-cid\n');
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,people-ann,hi\nm1,c1,people-cid,hello\n');
    const { config } = await writePipeline(dir, generatedPipeline('people'), f.env);
    await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    const dot = (await all(f.client.users.list({ name: 'people-dot' })))[0]!;
    expect((await api(`/users/${dot.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(`/channels/${await channelIdOf('people-a')}/members`, { method: 'POST', body: { username: 'people-cid' } })).status).toBe(200);

    const result = await runVerify({ config, ...FAST_EXPORT }, { client: f.client });
    expect(result.differences.map((d) => ({ ...brief(d), sourceKey: d.sourceKey }))).toEqual([
      { kind: 'missing', stage: 'users', sourceKey: 'u3', line: 5, channelKey: undefined, foundIn: undefined, fields: undefined },
      { kind: 'extra', stage: 'members', sourceKey: 'c0/people-cid', line: undefined, channelKey: 'c0', foundIn: undefined, fields: undefined },
    ]);
    expect(result.summary.stages.users).toMatchObject({ expected: 4, verified: 3 });
  });

  it('import --verify puts the verification into report.json and the printed report', async () => {
    const dir = join(f.dir, 'withverify');
    await writeCsvs(dir, generateCsvs({ users: 2, channels: 2, messages: 8 }, 'withverify-'));
    const { config } = await writePipeline(dir, generatedPipeline('withverify'), f.env);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 2 } }, { client: f.client });
    expect(report.verification).toMatchObject({ status: 'exact', stages: { messages: { expected: 8, verified: 8 } }, contentChecked: 2 });
    const saved = JSON.parse(await readFile(join(report.runDir, 'report.json'), 'utf8')) as typeof report;
    expect(saved.verification?.status).toBe('exact');
    expect(formatReportTable(report)).toMatch(/messages\s+8 of 8 verified on the platform/);
  });

  it('an import stopped before its messages (150,000 of them missing) is reported, not ended with exit 1', async () => {
    const { dir, config } = await importGenerated('stopped', { users: 2, channels: 1, messages: 0 });
    // The source holds the messages the run never sent: more than one call's arguments can carry (about 125,000).
    await writeCsvs(dir, generateCsvs({ users: 2, channels: 1, messages: 150_000 }, 'stopped-'));
    const result = await runVerify({ config, ...FAST_EXPORT }, { client: f.client });
    expect(result.summary.counts.missing).toBe(150_000);
    expect(result.summary.stages.messages).toMatchObject({ expected: 150_000, verified: 0 });
  }, 30_000);
});
