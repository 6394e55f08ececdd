/**
 * A window whose last day cannot be published: the days published before it stay published (each complete
 * with its manifest and `_SUCCESS`), so they must be whole — their rejects in place, as their manifests
 * say — and the failure must name them, so a scheduler knows what was replaced. Day 3's manifest folder
 * is a dangling symbolic link: publishing that day fails (exit 73) after days 1 and 2 were published.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { runExport } from '../../src/pipeline/export/index.js';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';
import { startS3Server } from '../helpers/s3-server.js';
import { runCli } from './cli.js';
import { readDataset, readManifest } from './read-output.js';
import { startExportBed, type ExportBed } from './support.js';

const [DAY1, DAY2, DAY3, DAY4] = ['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23'];
/** One good row a day, and on day 1 a row whose user_id is not a number (a reject of day 1). */
const MESSAGES = Buffer.from(
  ['id,type,channelId,userId,createdTime', `1,TEXT,5,7,${DAY1}T10:00:00Z`, `2,TEXT,5,seven,${DAY1}T11:00:00Z`, `3,TEXT,5,7,${DAY2}T10:00:00Z`, `4,TEXT,5,7,${DAY3}T10:00:00Z`, ''].join('\n'),
);

let bed: ExportBed;
let storage: OtherOrigin;

beforeAll(async () => {
  bed = await startExportBed({}, { users: 1, messages: 1 });
  storage = await startOtherOrigin({
    respond: () => ({ status: 200, headers: { 'content-type': 'text/csv', 'content-length': String(MESSAGES.length) }, body: MESSAGES }),
  });
  bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: storage.url } }]);
});
afterAll(async () => {
  await storage.close();
  await bed.close();
});

const cliEnv = (extra: Record<string, string>) => ({
  CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret, ...extra,
});

/** Exports [DAY1, DAY4) into a fresh root where day 3 cannot be published. */
async function runFailingWindow() {
  const root = bed.tempDir();
  // An earlier run's rejects of day 1: the new publication of day 1 replaces them.
  mkdirSync(join(root, '_rejects', 'messages', `dt=${DAY1}`), { recursive: true });
  writeFileSync(join(root, '_rejects', 'messages', `dt=${DAY1}`, 'rejects-older.ndjson'), '{"stale":true}\n');
  mkdirSync(join(root, '_manifests', 'messages'), { recursive: true });
  symlinkSync(join(root, 'nowhere'), join(root, '_manifests', 'messages', `dt=${DAY3}`));
  // Written only where the file exists, as /dev/termination-log does in a pod.
  const log = join(bed.tempDir(), 'termination-log');
  writeFileSync(log, '');
  const args = ['export', 'messages', '--to', root, '--format', 'csv', '--since', DAY1, '--until', DAY4, '--run-id', 'win', '--poll-interval', '0.01', '--json'];
  const result = await runCli(args, cliEnv({ CHATPORT_TERMINATION_LOG: log }));
  expect(result.exitCode).toBe(ExitCode.CANT_CREATE);
  expect(existsSync(join(root, 'messages', `dt=${DAY3}`, '_SUCCESS'))).toBe(false);
  for (const day of [DAY1, DAY2]) expect(existsSync(join(root, 'messages', `dt=${day}`, '_SUCCESS'))).toBe(true);
  return { root, result, log };
}

it('a window failing on its last day leaves the days published before it whole: their rejects in place, as their manifests say', async () => {
  const { root } = await runFailingWindow();
  expect((await readDataset(root, 'messages', DAY1)).map((r) => r.id)).toEqual([1n]);
  const rejectsFile = readManifest(root, 'messages', DAY1).details.rejectsFile as string;
  expect(rejectsFile).toBe(join(root, '_rejects', 'messages', `dt=${DAY1}`, 'rejects-win.ndjson'));
  expect(readFileSync(rejectsFile, 'utf8')).toContain('seven');
  expect(readdirSync(join(root, '_rejects', 'messages', `dt=${DAY1}`))).toEqual(['rejects-win.ndjson']);
  expect(existsSync(join(root, '_rejects', '_staging', 'messages', `dt=${DAY1}`, 'rejects-win.ndjson'))).toBe(false);
});
it('a window failing on its last day names the days it published, on stdout (--json) and in the termination log', async () => {
  const { result, log } = await runFailingWindow();
  const published = [{ dataset: 'messages', dates: [DAY1, DAY2] }];
  expect(describeFailure(result.error, { debug: false }).json.error.details).toMatchObject({ published });
  expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject({ exitCode: ExitCode.CANT_CREATE, published: [], partlyPublished: [{ dataset: 'messages', days: 2, first: DAY1, last: DAY2 }] });
});

it('a window to S3 puts each day\'s rejects into the store beside its output, named by that day\'s manifest', async () => {
  const s3 = await startS3Server();
  try {
    await s3.createBucket('lake');
    const client = s3.client();
    const report = await runExport(
      { datasets: ['messages'], to: 's3://lake/win', format: 'csv', window: { sinceMs: Date.parse(DAY1), untilMs: Date.parse(DAY4) }, runId: 'win', job: { pollIntervalMs: 5 }, s3: { endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } },
      { client: bed.client },
    );
    const rejects = ((await client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: 'win/_rejects/' }))).Contents ?? []).map((c) => c.Key!);
    expect(rejects).toEqual([expect.stringMatching(new RegExp(`^win/_rejects/messages/dt=${DAY1}/rejects-win-[0-9a-f]{8}\\.ndjson$`))]);
    expect(report.datasets[0]!.partitions.map((p) => p.rejectsFile)).toEqual([`s3://lake/${rejects[0]}`, null, null]);
    const text = await (await client.send(new GetObjectCommand({ Bucket: 'lake', Key: rejects[0]! }))).Body!.transformToString();
    expect(text).toContain('"seven"');
  } finally {
    await s3.close();
  }
});
