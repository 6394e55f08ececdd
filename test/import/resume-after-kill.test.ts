import { compareInt64 } from '../../src/shared/int64.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { all, generateCsvs, generatedPipeline, startImportFixture, writePipeline, type ImportFixture, writeCsvs } from './support.js';

const CLI = join(import.meta.dirname, '../../src/cli/main.ts');

let f: ImportFixture;
beforeAll(async () => {
  // Slow jobs, so that a kill lands while jobs are in flight.
  f = await startImportFixture({ jobs: { minDurationMs: 60 } });
});
afterAll(() => f.close());

/** `chatport import` as a child process; with `killWhen`, SIGKILLed the moment the journal satisfies it. */
function runCli(pipeline: string, stateDir: string, killWhen?: (events: JournalEvent[]) => boolean) {
  return chatportProcess(['import', pipeline, '--state', stateDir, '--json'], f.env, killWhen && (async () => killWhen(await journalEvents(stateDir))));
}

const count = countEvents;

describe('resume after SIGKILL', () => {
  it('ends with exactly the source records, in order, after kills at four different points', async () => {
    const dir = join(f.dir, 'killed');
    const csv = generateCsvs({ users: 5, channels: 3, messages: 600 });
    await writeCsvs(dir, csv);
    const { path } = await writePipeline(dir, generatedPipeline('killed', 'chunkRecords: 40\n  concurrency: 2'));
    const state = join(dir, 'state');

    const kills: Array<[string, (e: JournalEvent[]) => boolean]> = [
      ['during the users stage, a job in flight', (e) => count(e, 'part-submitted', 'users') >= 1],
      ['after the channels stage, before members and messages', (e) => count(e, 'stage-done', 'channels') >= 1],
      ['mid-messages, jobs in flight', (e) => count(e, 'part-submitted', 'messages') >= 3],
      ['mid-messages again, later', (e) => count(e, 'chunk-done', 'messages') >= 9],
    ];
    for (const [, when] of kills) {
      const result = await runCli(path, state, when);
      expect(result.signal).toBe('SIGKILL');
    }
    const final = await runCli(path, state);
    expect(final.code).toBe(0);
    const report = JSON.parse(final.stdout) as { status: string; attempt: number; stages: Record<string, { read: number; imported: number }> };
    expect(report.status).toBe('succeeded');
    expect(report.attempt).toBe(5);
    expect(report.stages.messages).toMatchObject({ read: 600, imported: 600 });

    // The platform holds every message once, in source order per channel.
    const channels = await all(f.client.channels.list());
    let total = 0;
    for (let c = 0; c < 3; c++) {
      const channel = channels.find((ch) => ch.name === `chan-${c}`)!;
      const bodies = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body);
      expect(bodies).toEqual(Array.from({ length: 200 }, (_, k) => `message number ${k * 3 + c}`));
      total += bodies.length;
    }
    expect(total).toBe(600);
    expect((await all(f.client.users.list())).filter((u) => u.name.startsWith('user'))).toHaveLength(5);
  }, 120_000);

  it('SIGTERM stops, saves state and exits 143; the next run finishes', async () => {
    const dir = join(f.dir, 'term');
    const csv = generateCsvs({ users: 3, channels: 2, messages: 300 }, 'term-');
    await writeCsvs(dir, csv);
    const { path } = await writePipeline(dir, generatedPipeline('term', 'chunkRecords: 30\n  concurrency: 2'));
    const state = join(dir, 'state');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'import', path, '--state', state, '--json'], {
      env: { ...process.env, ...f.env, CHATPORT_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    while (count(await journalEvents(state), 'part-submitted', 'messages') < 2) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    const events = await journalEvents(state);
    expect(events.some((e) => e.t === 'run-ended')).toBe(false);

    const final = await runCli(path, state);
    expect(final.code).toBe(0);
    expect(JSON.parse(final.stdout)).toMatchObject({ status: 'succeeded', attempt: 2, stages: { messages: { read: 300, imported: 300 } } });
  }, 60_000);

  it('a second signal exits at once, without waiting for an upload under way; the next run still finishes', async () => {
    const dir = join(f.dir, 'twice');
    const csv = generateCsvs({ users: 3, channels: 2, messages: 300 }, 'twice-');
    await writeCsvs(dir, csv);
    const { path } = await writePipeline(dir, generatedPipeline('twice', 'chunkRecords: 30\n  concurrency: 2'));
    const state = join(dir, 'state');
    // Message uploads hang on the server: the first signal's drain would wait for them, the second must not.
    f.sandbox.setFaults([{ method: 'POST', path: '/imports/messages', fault: { kind: 'delay', ms: 5_000 } }]);
    f.sandbox.clearRequests();
    const uploads = () => f.sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/imports/messages');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'import', path, '--state', state], {
        env: { ...process.env, ...f.env, CHATPORT_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      while (uploads().length === 0) await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      // The process was gone before the server answered any of its message uploads.
      expect(uploads().every((r) => r.status === undefined)).toBe(true);
    } finally {
      f.sandbox.setFaults([]);
    }
    const final = await runCli(path, state);
    expect(final.code).toBe(0);
    expect(JSON.parse(final.stdout)).toMatchObject({ status: 'succeeded', stages: { messages: { read: 300, imported: 300 } } });
  }, 60_000);
});
