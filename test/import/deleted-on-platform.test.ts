import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { pruneRuns } from '../../src/pipeline/runs/index.js';
import { exitCodeForReport, exitCodeForVerification, type RunReport } from '../../src/pipeline/report.js';
import { formatVerification, runVerify } from '../../src/pipeline/verify/index.js';
import { all, messagesPipeline, skippedLines, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Three messages imported, the second deleted on the platform, and the same import run again. */
async function importedThenDeleted(p: string, mode: string, afterFirst?: (state: string) => Promise<unknown>) {
  const dir = join(f.dir, p);
  await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text,tag\nm1,c0,${p}-ann,one,t\nm2,c0,${p}-ann,two,t\nm3,c0,${p}-ann,three,t\n`);
  const { config } = await writePipeline(dir, messagesPipeline(p, mode));
  const state = join(dir, 'state');
  const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
  expect(first.verification?.status).toBe('exact');
  const key = await sentKey(first, 'two');
  await afterFirst?.(state);
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-general`)!;
  const two = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).find((m) => m.body === 'two')!;
  await f.client.messages.delete(two.id);
  const from = f.sandbox.requests().length;
  const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client }).catch((e: unknown) => e as { report: RunReport });
  const report = 'report' in second ? second.report : second;
  const uploads = f.sandbox.requests().slice(from).filter((r) => r.method === 'POST' && r.path === '/imports/messages').length;
  return { first, report, uploads, key };
}

/** The idempotency key a run sent the message of this body with. */
async function sentKey(run: RunReport, body: string): Promise<string> {
  const items = JSON.parse(await readFile(join(run.runDir, 'chunks', 'messages', '000000.json'), 'utf8')) as Array<{ idempotencyKey: string; body: string }>;
  return items.find((i) => i.body === body)!.idempotencyKey;
}

describe('a message imported, then deleted on the platform, in a later run of the same import', () => {
  it('upsert: is skipped, not sent, and listed with the run that imported it and its key (before: sent, skipped by the platform, counted imported)', async () => {
    const { first, report, uploads, key } = await importedThenDeleted('del-upsert', 'upsert');
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, deleted: 1 });
    expect(report.totals.balanced).toBe(true);
    expect(uploads).toBe(0);
    const listed = await skippedLines(report.runDir, 'messages');
    expect(listed).toEqual([expect.objectContaining({ line: 3, rule: -1, record: expect.objectContaining({ id: 'm2' }) })]);
    expect(listed[0]!.because).toContain(`deleted on the platform after run ${first.runId} imported it`);
    expect(listed[0]!.because).toContain(key);
  });

  it.each(['insert', 'upsert'])('%s: verification says it was deleted on the platform after the run that imported it, with its key, and the run exits 2, not 65', async (mode) => {
    const { first, report, key } = await importedThenDeleted(`del-verify-${mode}`, mode);
    expect(report.verification).toMatchObject({ status: 'differences', counts: { missing: 1 }, deletedSinceImport: 1 });
    const differences = (await readFile(join(report.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(differences).toEqual([expect.objectContaining({ kind: 'missing', sourceKey: 'm2', deletedSinceImport: { runId: first.runId, idempotencyKey: key } })]);
    expect(differences[0]!.message).toMatch(new RegExp(`is not in channel c0: deleted on the platform after run ${first.runId} imported it \\(idempotency key ${key}\\)`));
    expect(exitCodeForReport(report)).toBe(2);
  });

  it('insert (no key on the platform: every record is sent again): once verification finds it deleted, the report counts it skipped, not imported, and lists it', async () => {
    const { first, report, uploads, key } = await importedThenDeleted('del-recount', 'insert');
    expect(uploads).toBe(1);
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, deleted: 1 });
    expect(report.totals).toMatchObject({ balanced: true, imported: 4, skipped: 1 });
    const saved = JSON.parse(await readFile(join(report.runDir, 'report.json'), 'utf8')) as RunReport;
    expect(saved.stages.messages).toMatchObject({ imported: 2, skipped: 1, deleted: 1 });
    const listed = await skippedLines(report.runDir, 'messages');
    expect(listed).toEqual([expect.objectContaining({ line: 3, rule: -1 })]);
    expect(listed[0]!.because).toContain(`deleted on the platform after run ${first.runId} imported it (idempotency key ${key})`);
  });
});

describe('a message imported, then deleted on the platform, after `runs prune` removed the folder of the run that imported it', () => {
  const pruneAll = (state: string) => pruneRuns(state, { keep: 0 });

  it('upsert: is still skipped, not sent, and named with that run and its key (before: sent, counted imported, verification "missing", exit 65)', async () => {
    const { first, report, uploads, key } = await importedThenDeleted('del-pruned-upsert', 'upsert', pruneAll);
    expect(existsSync(first.runDir)).toBe(false);
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, deleted: 1 });
    expect(uploads).toBe(0);
    const listed = await skippedLines(report.runDir, 'messages');
    expect(listed[0]!.because).toContain(`deleted on the platform after run ${first.runId} imported it (idempotency key ${key})`);
    expect(report.verification).toMatchObject({ counts: { missing: 1 }, deletedSinceImport: 1 });
    expect(exitCodeForReport(report)).toBe(2);
  });

  it('insert: verification names that run and its key, the report counts it skipped, and the run exits 2 (before: "missing", exit 65)', async () => {
    const { first, report, key } = await importedThenDeleted('del-pruned-insert', 'insert', pruneAll);
    expect(existsSync(first.runDir)).toBe(false);
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, deleted: 1 });
    expect(report.verification).toMatchObject({ counts: { missing: 1 }, deletedSinceImport: 1 });
    const differences = (await readFile(join(report.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(differences).toEqual([expect.objectContaining({ sourceKey: 'm2', deletedSinceImport: { runId: first.runId, idempotencyKey: key } })]);
    expect(exitCodeForReport(report)).toBe(2);
  });
});

describe('the imported index: what a finished run imported, written once by the next run that reads it', () => {
  it('a later run reads the index, not the chunk files (before: every upsert run read every earlier chunk file again)', async () => {
    const { first, report, uploads } = await importedThenDeleted('del-index-once', 'upsert', async (state) => {
      await runImport({ config: (await writePipeline(join(f.dir, 'del-index-once'), messagesPipeline('del-index-once', 'upsert'))).config, stateDir: state }, { client: f.client });
      const runs = await readdir(join(state, 'runs'));
      // The chunk files of the first run gone: only its index, written by the run above, can say what it imported.
      await rm(join(state, 'runs', runs.sort()[0]!, 'chunks'), { recursive: true });
    });
    expect(existsSync(join(first.runDir, '..', '..', 'imported', first.runId, 'messages.ndjson'))).toBe(true);
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, deleted: 1 });
    expect(uploads).toBe(0);
  });
});

describe('more missing messages than verification looks up among the runs\' imports', () => {
  it('the summary and its text say how many were not looked up (before: said missing, no word that they were not looked up)', async () => {
    const p = 'del-past-limit';
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
    await writeInput(dir, 'messages.csv', `id,channel,author,text,tag\nm1,c0,${p}-ann,one,t\nm2,c0,${p}-ann,two,t\nm3,c0,${p}-ann,three,t\n`);
    const { config } = await writePipeline(dir, messagesPipeline(p, 'insert'));
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state }, { client: f.client });
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-general`)!;
    for (const m of await all(f.client.channels.messages(channel.id, { pageSize: 100 }))) if (m.body !== 'one') await f.client.messages.delete(m.id);
    const { summary, differences, close } = await runVerify({ config, stateDirs: [state], mostLookedUp: 1 }, { client: f.client });
    await close();
    expect(summary).toMatchObject({ counts: { missing: 2 }, deletedSinceImport: 1, missingNotLookedUp: 1 });
    expect(formatVerification(summary, differences)).toContain('1 more missing record(s) not looked up among the runs\' imports (past the first 1)');
    expect(exitCodeForVerification(summary)).toBe(65);
  });
});

describe('a user or channel imported, then deleted on the platform, in a later run of the same import', () => {
  it('is skipped, not sent, and listed with the run that imported it (before: sent, skipped by the platform, counted imported)', async () => {
    const p = 'del-user';
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\nu1,${p}-ben\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\nc1,${p}-random,${p}-ann\n`);
    await writeInput(dir, 'messages.csv', 'id,channel,author,text,tag\n');
    const { config } = await writePipeline(dir, messagesPipeline(p, 'insert'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state }, { client: f.client });
    const ben = (await all(f.client.users.list({ pageSize: 100 }))).find((u) => u.name === `${p}-ben`)!;
    const random = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-random`)!;
    await f.client.records.deleteUser(ben.id);
    await f.client.records.deleteChannel(random.id);
    const second = await runImport({ config, stateDir: state }, { client: f.client });
    expect(second.stages.users).toMatchObject({ read: 2, imported: 1, skipped: 1, deleted: 1 });
    expect(second.stages.channels).toMatchObject({ read: 2, imported: 1, skipped: 1, deleted: 1 });
    for (const stage of ['users', 'channels']) {
      const listed = await skippedLines(second.runDir, stage);
      expect(listed).toEqual([expect.objectContaining({ line: 3, rule: -1 })]);
      expect(listed[0]!.because).toContain(`deleted on the platform after run ${first.runId} imported it`);
    }
  });
});

describe('a member a members stage imported, then removed on the platform, in a later run', () => {
  it('verification says it was removed after the run that imported it, the run exits 2, and the report counts it skipped, not imported', async () => {
    const p = 'del-member';
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\nu1,${p}-ben\n`);
    await writeInput(dir, 'channels.csv', `key,name\nc0,${p}-general\n`);
    await writeInput(dir, 'members.csv', `channel,user\nc0,${p}-ann\nc0,${p}-ben\n`);
    const { config } = await writePipeline(dir, `name: ${p}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: username, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { const: [] } } }
  members: { source: { path: members.csv }, key: [channel, user], channel: channel, mapping: { username: user } }
`);
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    const general = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-general`)!;
    const ben = (await all(f.client.users.list({ pageSize: 100 }))).find((u) => u.name === `${p}-ben`)!;
    await f.client.records.removeMember(general.id, ben.id);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.members).toMatchObject({ read: 2, imported: 1, skipped: 1, deleted: 1 });
    expect(second.verification).toMatchObject({ counts: { missing: 1 }, deletedSinceImport: 1 });
    expect(exitCodeForReport(second)).toBe(2);
    const listed = await skippedLines(second.runDir, 'members');
    expect(listed).toEqual([expect.objectContaining({ line: 3, rule: -1 })]);
    expect(listed[0]!.because).toContain(`deleted on the platform after run ${first.runId} imported it`);
  });
});

describe('a member a channel record listed (its members field), then removed on the platform, in a later run', () => {
  it.each(['insert', 'upsert'])('%s: verification says it was removed after the run that imported its channel, the run exits 2 (before: "missing", exit 65)', async (mode) => {
    const p = `del-channel-member-${mode}`;
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\nu1,${p}-ben\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann|${p}-ben\n`);
    await writeInput(dir, 'messages.csv', 'id,channel,author,text,tag\n');
    const { config } = await writePipeline(dir, messagesPipeline(p, mode));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.verification?.status).toBe('exact');
    const general = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-general`)!;
    const ben = (await all(f.client.users.list({ pageSize: 100 }))).find((u) => u.name === `${p}-ben`)!;
    await f.client.records.removeMember(general.id, ben.id);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client }).catch((e: unknown) => (e as { report: RunReport }).report);
    expect(second.verification).toMatchObject({ counts: { missing: 1 }, deletedSinceImport: 1 });
    const differences = (await readFile(join(second.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(differences).toEqual([expect.objectContaining({ kind: 'missing', stage: 'members', sourceKey: 'c0/' + `${p}-ben`, deletedSinceImport: expect.objectContaining({ runId: first.runId }) })]);
    expect(differences[0]!.message).toContain(`"${p}-ben" is not a member of channel c0: removed on the platform after run ${first.runId} imported it with its channel`);
    expect(exitCodeForReport(second)).toBe(2);
  });
});

describe('a message corrected in the source after an insert run imported it, where verification cannot pair the two copies', () => {
  it('is not said deleted on the platform (it is there, as the earlier run sent it) nor recounted skipped, and the run exits 65 (before: "deleted on the platform", skipped, exit 2 when alone)', async () => {
    const p = 'changed-not-deleted';
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
    await writeInput(dir, 'messages.csv', `id,channel,author,text,kind\nm1,c0,${p}-ann,one,TEXT\nm2,c0,${p}-ann,two,TEXT\nm3,c0,${p}-ann,three,TEXT\n`);
    const pipeline = messagesPipeline(p, 'insert').replace('type: { const: TEXT }', 'type: kind').replace(', properties: { tag: tag }', '');
    const { config } = await writePipeline(dir, pipeline);
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.verification?.status).toBe('exact');
    // Another type and another body: verification sees one missing and one extra, not one changed message.
    await writeInput(dir, 'messages.csv', `id,channel,author,text,kind\nm1,c0,${p}-ann,one,TEXT\nm2,c0,,two was corrected,SYSTEM_TEXT\nm3,c0,${p}-ann,three,TEXT\n`);
    // `chatport verify` before any run sent the correction: the source's record is what differs from the sent one.
    const verified = await runVerify({ config, stateDirs: [state] }, { client: f.client });
    expect(verified.summary).toMatchObject({ counts: { missing: 1, extra: 1 } });
    expect(verified.summary).not.toHaveProperty('deletedSinceImport');
    expect(verified.differences.find((d) => d.kind === 'missing')).toMatchObject({ sourceKey: 'm2', changedSinceImport: { runId: first.runId } });
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === `${p}-general`)!;
    expect((await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body)).toEqual(['one', 'two', 'three']);
    expect(second.verification).toMatchObject({ status: 'differences', counts: { missing: 1, extra: 1 } });
    expect(second.verification).not.toHaveProperty('deletedSinceImport');
    const differences = (await readFile(join(second.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const missing = differences.find((d) => d.kind === 'missing')!;
    expect(missing).toMatchObject({ sourceKey: 'm2', changedSinceImport: { runId: first.runId, idempotencyKey: await sentKey(first, 'two') } });
    expect(missing).not.toHaveProperty('deletedSinceImport');
    expect(missing.message).not.toContain('deleted on the platform after');
    expect(missing.message).toContain(`run ${first.runId} imported another version of it`);
    expect(second.stages.messages).toMatchObject({ read: 3, skipped: 0 });
    expect(exitCodeForReport(second)).toBe(65);
    // Both runs' folders pruned: their imported index (a print of what each sent, no bodies) still tells the versions apart.
    await pruneRuns(state, { keep: 0 });
    const afterPrune = await runVerify({ config, stateDirs: [state] }, { client: f.client });
    expect(afterPrune.summary).not.toHaveProperty('deletedSinceImport');
    expect(afterPrune.differences.find((d) => d.kind === 'missing')).toMatchObject({ sourceKey: 'm2', changedSinceImport: { runId: first.runId } });
  });
});
