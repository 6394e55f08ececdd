import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { all, startImportFixture, type ImportFixture } from '../import/support.js';
import { readPlatform, readRawExport, type PlatformState } from './support.js';
import { chatportProcess } from '../helpers/cli-process.js';

/** `chatport migrate slack` and `chatport validate pipelines/slack.yaml` as a user runs them. */
const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE = join(ROOT, 'fixtures', 'slack', 'sample');

const chatport = chatportProcess;

let f: ImportFixture;
let zip: string;
let imported: PlatformState;
let damaged: string;
beforeAll(async () => {
  f = await startImportFixture();
  zip = join(f.dir, 'sample.zip');
  await generateSlackExport({ out: zip, seed: 1, messages: 300, longEvery: 0 });
  // The sample with problems a real export can have: a day file that is not JSON, a message without
  // its ts, and a folder no conversation list names.
  damaged = join(f.dir, 'damaged');
  await cp(SAMPLE, damaged, { recursive: true });
  await writeFile(join(damaged, 'general', '2099-01-01.json'), '[{"type": "message", "text": "cut off');
  const day = join(damaged, 'random', '2020-09-14.json');
  const messages = JSON.parse(await readFile(day, 'utf8')) as Array<Record<string, unknown>>;
  messages.push({ type: 'message', user: 'U0001', text: 'no timestamp' });
  await writeFile(day, JSON.stringify(messages));
  await mkdir(join(damaged, 'stray-folder'));
  await writeFile(join(damaged, 'stray-folder', '2020-09-14.json'), JSON.stringify([{ type: 'message', ts: '1600000000.000001', text: 'a' }, { type: 'message', ts: '1600000000.000002', text: 'b' }]));
}, 30_000);
afterAll(() => f?.close());

describe('chatport migrate slack', () => {
  it('imports a zip into the platform, prints the report and exits 0', async () => {
    const ran = await chatport(['migrate', 'slack', zip, '--state', join(f.dir, 'state-zip'), '--json'], f.env);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as RunReport;
    expect(report).toMatchObject({ pipeline: 'slack', status: 'succeeded', totals: { read: 417, imported: 417, rejected: 0, skipped: 0, balanced: true } });
    // 300 messages, one split in two, and 4 replies also sent to the channel, each with its channel copy.
    expect(report.stages.messages).toMatchObject({ read: 305, imported: 305 });
    const channels = await all(f.client.channels.list());
    expect(channels.map((c) => c.type).sort()).toEqual(['DIRECT', 'DIRECT', 'DIRECT', 'PRIVATE', 'PRIVATE', 'PRIVATE', 'PUBLIC', 'PUBLIC', 'PUBLIC', 'PUBLIC', 'PUBLIC']);
    expect(await all(f.client.users.list())).toHaveLength(21);
    imported = await readPlatform(f.client);
  }, 30_000);

  it('finishes a run killed in the messages stage when run again: the same platform as one clean run', async () => {
    const slow = await startImportFixture({ jobs: { minDurationMs: 30 } });
    try {
      const state = join(slow.dir, 'state');
      const env = { ...slow.env, CHATPORT_CHUNK_RECORDS: '20' };
      const messageJobs = async () => (await readFile(join(state, 'journal.ndjson'), 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('"part-submitted"') && l.includes('"messages"')).length;
      const killed = await chatport(['migrate', 'slack', zip, '--state', state, '--json'], env, async () => (await messageJobs()) >= 3);
      expect(killed.code).toBeNull();
      const resumed = await chatport(['migrate', 'slack', zip, '--state', state, '--json'], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'succeeded', attempt: 2, totals: { read: 417, imported: 417, balanced: true } });
      expect(await readPlatform(slow.client)).toEqual(imported);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('killed while replies go into their threads and run again: no reply missing or doubled; chatport verify says exact, threads included', async () => {
    // Replies are slowed down so the kill lands among them.
    const slow = await startImportFixture({ faults: [{ method: 'POST', path: '/threads/*/messages', fault: { kind: 'delay', ms: 15 } }] });
    try {
      const state = join(slow.dir, 'state');
      const sentReplies = async () => (await readFile(join(state, 'journal.ndjson'), 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('"reply-sent"')).length;
      const killed = await chatport(['migrate', 'slack', zip, '--state', state, '--json'], slow.env, async () => (await sentReplies()) >= 5);
      expect(killed.code).toBeNull();
      const before = await sentReplies();
      const resumed = await chatport(['migrate', 'slack', zip, '--state', state, '--json'], slow.env);
      expect(resumed.code, resumed.stderr).toBe(0);
      const report = JSON.parse(resumed.stdout) as RunReport;
      expect(report).toMatchObject({ status: 'succeeded', attempt: 2, totals: { read: 417, imported: 417, balanced: true } });
      expect(report.stages.messages!.replies).toBeGreaterThan(before);
      expect(await readPlatform(slow.client)).toEqual(imported);

      const verified = await chatport(['verify', 'pipelines/slack.yaml', '--state', state], { ...slow.env, SLACK_EXPORT: zip });
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      expect(verified.stdout).toContain('exact');
    } finally {
      await slow.close();
    }
  }, 90_000);

  it('exits 2 when records were rejected, each in rejects.ndjson with its file and reason; unnamed folders are skipped', async () => {
    const ran = await chatport(['migrate', 'slack', damaged, '--state', join(f.dir, 'state-damaged'), '--json'], f.env);
    expect(ran.code, ran.stderr).toBe(2);
    const report = JSON.parse(ran.stdout) as RunReport;
    expect(report.status).toBe('completed-with-rejects');
    expect(report.stages.messages).toMatchObject({ read: 309, imported: 305, rejected: 2, skipped: 2 });
    expect(report.totals.balanced).toBe(true);
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { file: string; index: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: `${damaged}/general/2099-01-01.json`, reasons: [expect.objectContaining({ message: expect.stringContaining('not valid JSON') })] }),
        expect.objectContaining({ file: `${damaged}/random/2020-09-14.json`, reasons: [expect.objectContaining({ field: 'ts' })] }),
      ]),
    );
  }, 30_000);

  it('refuses a path that is not an export, with the path in the message', async () => {
    const ran = await chatport(['migrate', 'slack', join(f.dir, 'nothing-here.zip'), '--state', join(f.dir, 'state-none')], f.env);
    expect(ran.code).toBe(66);
    expect(ran.stderr).toContain('nothing-here.zip');
  }, 30_000);
});

describe('chatport validate pipelines/slack.yaml', () => {
  it('prints the counts and the problems of an export, exiting 65', async () => {
    const ran = await chatport(['validate', 'pipelines/slack.yaml'], { SLACK_EXPORT: damaged });
    expect(ran.code, ran.stderr).toBe(65);
    expect(ran.stdout).toMatch(/^users\s+21\s/m);
    // read, imported, (updated), duplicates, rejected, (refused), skipped, (changed), pending
    expect(ran.stdout).toMatch(/^messages\s+309\s+0\s+0\s+0\s+2\s+0\s+2\s+0\s+305\s/m);
    expect(ran.stdout).toContain('messages: problems');
    expect(ran.stdout).toContain('general/2099-01-01.json record 0: general/2099-01-01.json: not valid JSON');
  }, 30_000);

  it('counts system messages as skipped when the pipeline says so', async () => {
    const ran = await chatport(['validate', 'pipelines/slack.yaml', '--json'], { SLACK_EXPORT: SAMPLE, SLACK_SYSTEM_MESSAGES: 'skip' });
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as { stages: Record<string, { read: number; skipped: number; rejected: number }> };
    // The generator's system subtypes: join, leave, topic, purpose, name, archive (channel_ and group_), pinned_item.
    const raw = await readRawExport(SAMPLE);
    const system = raw.conversations.flatMap((c) => c.messages).filter((m) => /^(channel|group)_(join|leave|topic|purpose|name|archive)$|^pinned_item$/.test(String(m.subtype ?? ''))).length;
    expect(system).toBeGreaterThan(0);
    expect(result.stages.messages!.read).toBe(305);
    expect(result.stages.messages!.skipped).toBe(system);
    expect(result.stages.messages!.rejected).toBe(0);
  }, 30_000);
});
