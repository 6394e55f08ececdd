import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/report.js';
import type { VerificationSummary } from '../../src/pipeline/verify/types.js';
import { dumpDom, screenshot } from '../helpers/chromium.js';
import { decodePng, inkOf } from '../helpers/png.js';
import { generateCsvs, generatedPipeline, runCli, startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';

/**
 * report.html as a person sees it: an import with rejects and 429s, its page rendered by headless Chromium,
 * the figures read from the rendered DOM and the screenshot checked to show something.
 */
describe('report.html', () => {
  let f: ImportFixture;
  let report: RunReport;
  let page: string;
  let dom: string;
  const profile = mkdtemp(join(tmpdir(), 'chatport-chromium-'));

  beforeAll(async () => {
    f = await startImportFixture({ jobs: { minDurationMs: 20 } });
    const csv = generateCsvs({ users: 6, channels: 3, messages: 240 }, 'rh-');
    // Rows 2..5 of the extra lines name an author nobody has; two have an empty body.
    const bad = ['m900,c0,ghost,hello', 'm901,c1,ghost,hello', 'm902,c2,ghost,hello', 'm903,c0,rh-user1,', 'm904,c1,rh-user2,'].join('\n');
    await writeInput(f.dir, 'users.csv', csv.users);
    await writeInput(f.dir, 'channels.csv', csv.channels);
    await writeInput(f.dir, 'messages.csv', `${csv.messages}${bad}\n`);
    const { path } = await writePipeline(f.dir, generatedPipeline('report-html', 'chunkRecords: 20\n  concurrency: 4'), f.env);
    f.sandbox.setFaults([{ method: 'POST', path: '/imports/**', fault: { kind: 'rateLimit', budget: 2, windowMs: 1000 } }]);
    const run = await runCli(['import', path, '--state', join(f.dir, 'state')], f.env);
    expect(run.stderr).not.toContain('report.html could not be written');
    expect(run.code).toBe(2);
    const runs = await readdir(join(f.dir, 'state', 'runs'));
    expect(runs).toHaveLength(1);
    report = JSON.parse(await readFile(join(f.dir, 'state', 'runs', runs[0]!, 'report.json'), 'utf8')) as RunReport;
    page = join(report.runDir, 'report.html');
    dom = await dumpDom(page, await profile);
  }, 180_000);
  afterAll(() => f.close());

  it('shows each stage’s counts and the accounting invariant', () => {
    for (const [stage, counts] of Object.entries(report.stages)) {
      const row = new RegExp(`<tr data-stage="${stage}"><th>${stage}</th>((?:<td[^>]*>[^<]*</td>)+)</tr>`).exec(dom);
      expect(row, stage).not.toBeNull();
      for (const key of ['read', 'imported', 'rejected', 'skipped'] as const) expect(row![1]).toContain(`<td data-count="${key}">${counts[key].toLocaleString('en-US')}</td>`);
    }
    const m = report.stages.messages!;
    expect(m.read).toBe(245);
    expect(m.rejected).toBe(5);
    expect(dom).toContain(`messages: read 245 = imported ${m.imported} + duplicates 0 + rejected 5 + skipped 0 ✓`);
    expect(dom).toContain('Every record accounted for');
  });

  it('groups the rejects by reason, with examples at their source positions', () => {
    const groups = [...dom.matchAll(/<summary><b class="reject-count">(\d+)<\/b> messages · invalid · <code>([^<]*)<\/code>/g)].map((g) => [g[2], Number(g[1])]);
    expect(groups).toEqual(expect.arrayContaining([['body', 2]]));
    expect(groups.reduce((n, g) => n + (g[1] as number), 0)).toBeGreaterThanOrEqual(5);
    const csvLines = (n: number) => `messages.csv:${242 + n}`;
    for (const n of [0, 1, 2, 3, 4]) expect(dom).toContain(csvLines(n));
  });

  it('draws throughput, concurrency, 429s and job durations from the journal', () => {
    for (const title of ['Throughput', 'Upload concurrency', 'Rate limiting', 'Job durations']) expect(dom).toContain(`<figcaption>${title}`);
    const svgs = [...dom.matchAll(/<svg[^]*?<\/svg>/g)].map((s) => s[0]);
    expect(svgs).toHaveLength(4);
    expect(svgs[0]).toMatch(/<polyline points="[^"]+"/);
    expect(svgs[2]).toMatch(/<rect x="[^"]+" y="[^"]+" width="[^"]+" height="[^"]+" fill="#2563eb">/); // a 429 bar
    const dots = svgs[3]!.match(/<circle /g) ?? [];
    const jobs = Object.values(report.stages).reduce((n, c) => n + c.jobs.submitted, 0);
    expect(dots.length).toBe(jobs);
    expect(dom).not.toContain('none in this run');
  });

  it('shows the verification import ran', () => {
    expect(report.verification?.status).toBe('exact');
    expect(dom).toMatch(/<section id="verification"><h2>Verification<\/h2><p class="ok">Exact/);
    expect(dom).toContain(`<tr data-stage="messages"><th>messages</th><td>${(report.verification as VerificationSummary).stages.messages!.expected}</td>`);
  });

  it('renders to a screenshot a person can read: the expected size, not blank, with charts in colour', async () => {
    const png = join(f.dir, 'report.png');
    await screenshot(page, png, { width: 1280, height: 2200 }, await profile);
    const image = decodePng(await readFile(png));
    expect([image.width, image.height]).toEqual([1280, 2200]);
    const ink = inkOf(image);
    expect(ink.inked).toBeGreaterThan(0.02);
    expect(ink.colours).toBeGreaterThan(50);
  }, 120_000);
});
