/**
 * `chatport migrate slack` on a seeded export (slack-diff.ts), SIGKILLed at seeded points of its journal (in
 * the messages' uploads, then in the replies pass) and resumed each time: the run that finishes must say,
 * record by record, what the oracle says, and the platform must hold exactly the oracle's channels,
 * messages and threads (nothing lost, nothing twice). DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { rng } from '../helpers/rng.js';
import { startImportFixture, writePipeline } from '../import/support.js';
import { caseDir, diffSeeds, expectPlatformHoldsCase, expectRecordOutcomes, generateSlackCase, writeSlackCase, type SlackCase, type SlackRunFiles } from './slack-diff.js';

type KillPoint = (events: JournalEvent[]) => boolean;

/**
 * Kill points in journal order, drawn from the seed: one in the messages' uploads, and one in the replies
 * pass, after a reply that is not the last (each reply is sent slowly, see REPLY_DELAY_MS, so the kill lands
 * before the next; after the last one the run would end before a kill could).
 */
function killPoints(seed: number, c: SlackCase): KillPoint[] {
  const random = rng(seed * 7919);
  const submitted = 1 + Math.floor(random() * 4);
  const inUploads: KillPoint = (e) => countEvents(e, 'part-submitted', 'messages') >= submitted;
  // Sent by the replies pass: the replies, and the orphans it sends into their channels after the imports.
  const sendable = c.counts.replies + c.expected.channels.reduce((n, ch) => n + ch.late.length, 0);
  if (sendable < 2) return [inUploads];
  const sent = 1 + Math.floor(random() * Math.min(3, sendable - 1));
  const replyEvents = (e: JournalEvent[]) => e.filter((x) => x.t === 'reply-sent').length;
  return [inUploads, (e) => countEvents(e, 'stage-done', 'members') >= 1 && replyEvents(e) >= sent];
}

/** Each reply sent into a thread waits this long on the platform, so a kill after one lands before the next. */
const REPLY_DELAY_MS = 300;

describe.each(diffSeeds('2'))('Slack export killed and resumed, seed %i', (seed) => {
  it('ends record by record as the oracle says, with exactly the oracle on the platform', async () => {
    // A platform of its own (the oracle says what all of it holds), with slow jobs so that a kill lands while jobs are in flight.
    const f = await startImportFixture({ jobs: { minDurationMs: 40 }, faults: [{ method: 'POST', path: '/threads/*/messages', fault: { kind: 'delay', ms: REPLY_DELAY_MS } }] });
    try {
    const c = generateSlackCase(seed);
    const dir = caseDir(f.dir, seed);
    const { zip, config } = await writeSlackCase(dir, c, 'slack', writePipeline);
    const state = join(dir, 'state');
    const env = { ...f.env, CHATPORT_CHUNK_RECORDS: '7', SLACK_SYSTEM_MESSAGES: c.systemMessages };
    const run = (killWhen?: KillPoint) => chatportProcess(['migrate', 'slack', zip, '--state', state, '--json'], env, killWhen && (async () => killWhen(await journalEvents(state))));

    const points = killPoints(seed, c);
    for (const point of points) expect((await run(point)).signal).toBe('SIGKILL');
    const final = await run();
    const rejected = Object.values(c.counts).some((n) => typeof n === 'object' && n.rejected > 0);
    // 2: completed with rejects (the export has broken records).
    expect(final.code, final.stderr).toBe(rejected ? 2 : 0);
    const report = JSON.parse(final.stdout) as SlackRunFiles & { attempt: number; totals: { balanced: boolean } };
    expect(report.attempt).toBe(points.length + 1);
    expect(report.totals.balanced).toBe(true);
    await expectRecordOutcomes(report, c, zip, config);
    await expectPlatformHoldsCase(f.client, c);
    } finally {
      await f.close();
    }
  }, 180_000);
});
