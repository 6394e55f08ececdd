/**
 * A resumed run whose journal names jobs the platform no longer knows (a platform that lost its job
 * records, as a sandbox restarted without --data would): each such job answers 404, is forgotten, and its
 * part is sent again; idempotency keys keep the platform's data exact.
 */
import { compareInt64 } from '../../src/shared/int64.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { captureLogs } from '../api/support.js';
import { all, generateCsvs, generatedPipeline, startImportFixture, writePipeline, type ImportFixture, writeCsvs } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  // Jobs take a while, so that the run is stopped with message jobs in flight.
  f = await startImportFixture({ jobs: { minDurationMs: 150 } });
});
afterAll(() => f.close());

const UNKNOWN_JOB_BASE = 900_000;

async function readEvents(path: string): Promise<JournalEvent[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.endsWith('}')).map((l) => JSON.parse(l) as JournalEvent);
}

function inFlightMessageParts(events: JournalEvent[]): Set<string> {
  const open = new Set<string>();
  for (const e of events) {
    if (e.t === 'part-submitted' && e.stage === 'messages') open.add(`${e.seq}/${e.part}`);
    if (e.t === 'part-ended' && e.stage === 'messages') open.delete(`${e.seq}/${e.part}`);
  }
  return open;
}

it('a journalled job that answers 404 is forgotten and its part sent again; the platform holds every message once, in order', async () => {
  const dir = join(f.dir, 'unknown-job');
  const csv = generateCsvs({ users: 3, channels: 2, messages: 240 }, 'gone-');
  await writeCsvs(dir, csv);
  const { config } = await writePipeline(dir, generatedPipeline('gone', 'chunkRecords: 30\n  concurrency: 2'));
  const stateDir = join(dir, 'state');
  const journalPath = join(stateDir, 'journal.ndjson');

  // First run: stopped while message jobs are in flight (their ids are in the journal, not their ends).
  const stop = new AbortController();
  const first = runImport({ config, stateDir, drainMs: 60_000 }, { client: f.client, signal: stop.signal }).catch((e: unknown) => e);
  while (inFlightMessageParts(await readEvents(journalPath)).size === 0) await new Promise((r) => setTimeout(r, 5));
  stop.abort(new Error('stop'));
  await first;

  // The platform forgets those jobs: the journal now names ids it never gave out.
  const events = await readEvents(journalPath);
  const open = inFlightMessageParts(events);
  expect(open.size).toBeGreaterThan(0);
  const forgotten: number[] = [];
  const edited = events.map((e) => {
    if (e.t !== 'part-submitted' || e.stage !== 'messages' || !open.has(`${e.seq}/${e.part}`)) return e;
    const jobId = UNKNOWN_JOB_BASE + forgotten.length;
    forgotten.push(jobId);
    return { ...e, jobId };
  });
  await writeFile(journalPath, edited.map((e) => `${JSON.stringify(e)}\n`).join(''));

  f.sandbox.clearRequests();
  const logs = captureLogs();
  const report = await runImport({ config, stateDir }, { client: f.client, logger: logs.logger });
  expect(report.status).toBe('succeeded');
  expect(report.stages.messages).toMatchObject({ read: 240, imported: 240, rejected: 0 });

  // Each forgotten job was polled once, answered 404, and was not polled again.
  const polls = f.sandbox.requests().filter((r) => r.method === 'GET' && /^\/jobs\/9\d{5}$/.test(r.path));
  expect(polls.map((r) => [r.path, r.status])).toEqual(forgotten.map((id) => [`/jobs/${id}`, 404]));
  expect(logs.lines.filter((l) => l.includes('does not know this import job'))).toHaveLength(forgotten.length);
  const resent = (await readEvents(journalPath)).filter((e) => e.t === 'part-submitted' && e.stage === 'messages' && open.has(`${e.seq}/${e.part}`));
  expect(resent.filter((e) => e.t === 'part-submitted' && e.jobId < UNKNOWN_JOB_BASE)).toHaveLength(open.size);

  // The platform holds every message once, in source order per channel.
  for (let c = 0; c < 2; c++) {
    const channel = (await all(f.client.channels.list())).find((ch) => ch.name === `gone-chan-${c}`)!;
    const bodies = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body);
    expect(bodies).toEqual(Array.from({ length: 120 }, (_, k) => `message number ${k * 2 + c}`));
  }
}, 60_000);
