/**
 * A differential check of the nightly analytics export: a seeded generator puts on the sandbox what real
 * platforms hold (user, channel names and group tags with quotes, commas, CR/LF and emoji, names of 128
 * and display names of 256 characters, bodies of 40,000, messages without a group tag or a user, edits on
 * other days, replies, ids beyond 2^53, times at the edges of UTC days, before 1970 and with sub-millisecond
 * digits, over several days and around the window). A small oracle written from docs/export.md alone says
 * what each partition must hold, from the sandbox's data read back over HTTP (never through the export
 * code). Every format is exported, over the window and day by day, locally (library and CLI) and to S3, read
 * back with independent readers (hyparquet, csv-parse, JSON.parse) and compared value by value, with
 * manifests, checksums, reports and rejects (none: the sandbox's rows are all valid); a rerun and a run
 * after a simulated crash must publish the same and nothing twice. DIFF_SEEDS=1,2,… picks the seeds.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMergePatchBody, type Message } from '../../src/api/index.js';
import { runExport, type ExportReport, type RunExportOptions } from '../../src/pipeline/export/index.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import type { Int64 } from '../../src/shared/int64.js';
import { stringifyJson } from '../../src/shared/lossless-json.js';
import type { OutputFormat } from '../../src/sinks/index.js';
import { rng } from '../helpers/rng.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { runCli } from './cli.js';
import { listFiles, readDataFile, readDataset, readManifest } from './read-output.js';
import { collect, startExportBed, type ExportBed } from './support.js';

const MICROS_PER_DAY = 86_400_000_000n;
const FORMATS: readonly OutputFormat[] = ['parquet', 'ndjson', 'csv'];
const EXTENSION: Record<OutputFormat, string> = { parquet: 'parquet', ndjson: 'ndjson.gz', csv: 'csv.gz' };
/** First days of the windows: before 1970 (and across its start), a leap day, a year's end. */
const FIRST_DAYS = ['1969-12-30', '2026-11-20', '2000-02-28', '2024-12-30', '1969-12-31'];
const DAYS = 3;
const PIECES = ['hello', 'a, b', 'say "hi"', 'line one\nline two', 'crlf\r\nend', 'cr\ronly', 'émoji 🎉', '  padded  ', '日本語', 'tab\there', '=1+2', 'null', 'NULL', '\\N', '"', ',', "it's"];

const dayOf = (micros: bigint) => {
  const day = micros / MICROS_PER_DAY - (micros % MICROS_PER_DAY < 0n ? 1n : 0n);
  return new Date(Number(day) * 86_400_000).toISOString().slice(0, 10);
};
const microsOfDay = (day: string) => BigInt(Date.parse(`${day}T00:00:00Z`)) * 1000n;

/** Epoch microseconds of a wire timestamp, exactly (Date keeps only milliseconds). */
function microsOf(iso: string | undefined): bigint | null {
  if (iso === undefined) return null;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (!m) throw new Error(`not a wire timestamp: ${iso}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

interface Case {
  days: string[];
  since: string;
  until: string;
  /** Moments (epoch µs) the sandbox's clock is set to, one per batch of records. */
  moments: bigint[];
  users: Array<{ name: string; displayName: string; isGuest: boolean; at: bigint }>;
  channels: Array<{ name: string; displayName: string }>;
  messages: Array<{ channel: number; user?: string; body: string; groupTag?: string; at: bigint }>;
  edits: Array<{ message: number; body?: string; groupTag?: string | null; at: bigint }>;
  replies: Array<{ message: number; user: string; body: string; at: bigint }>;
}

function generateCase(seed: number): Case {
  const random = rng(seed);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const text = () => {
    let t = pick(PIECES);
    while (chance(0.4)) t += pick([' ', '', ',']) + pick(PIECES);
    return t;
  };
  const since = FIRST_DAYS[seed % FIRST_DAYS.length]!;
  const first = microsOfDay(since);
  const days = Array.from({ length: DAYS }, (_, d) => dayOf(first + BigInt(d) * MICROS_PER_DAY));
  const until = dayOf(first + BigInt(DAYS) * MICROS_PER_DAY);
  // Each window day's edges, a time with sub-millisecond digits, and times just outside the window.
  const edges = days.flatMap((_, d) => {
    const start = first + BigInt(d) * MICROS_PER_DAY;
    return [start, start + MICROS_PER_DAY - 1n, start + MICROS_PER_DAY - 1000n, start + BigInt(Math.floor(random() * 86_400e6)), start + 43_200_000_500n];
  });
  const outside = [first - 1n, first + BigInt(DAYS) * MICROS_PER_DAY, first - 40n * MICROS_PER_DAY + 123_457n, -400n * MICROS_PER_DAY - 1n];
  const moments = [...new Set([...Array.from({ length: 8 }, () => pick(edges)), pick(outside), pick(outside)])];

  const users = Array.from({ length: 6 + Math.floor(random() * 5) }, (_, i) => ({
    name: chance(0.15) ? `${'n'.repeat(124)}${String(i).padStart(4, '0')}` : `${text()}#${i}`.slice(-128),
    displayName: chance(0.1) ? 'd'.repeat(256) : text(),
    isGuest: chance(0.3),
    at: pick(moments),
  }));
  const channels = Array.from({ length: 3 }, (_, c) => ({ name: `${text()}/${seed}-${c}`.slice(-128), displayName: text() }));
  const messages: Case['messages'] = [];
  for (const at of moments)
    for (let n = 1 + Math.floor(random() * 8); n > 0; n--) {
      const system = chance(0.2);
      messages.push({
        channel: Math.floor(random() * channels.length),
        ...(system ? {} : { user: pick(users).name }),
        body: chance(0.05) ? 'y'.repeat(40_000) : chance(0.05) ? '🎉'.repeat(999) : text(),
        ...(chance(0.4) ? { groupTag: text() } : {}),
        at,
      });
    }
  const edits = Array.from({ length: Math.floor(messages.length / 5) }, () => ({
    message: Math.floor(random() * messages.length),
    ...(chance(0.5) ? { body: text() } : {}),
    groupTag: chance(0.3) ? null : text(),
    at: pick(moments),
  }));
  const replies = Array.from({ length: 2 + Math.floor(random() * 4) }, () => ({ message: Math.floor(random() * messages.length), user: pick(users).name, body: text(), at: pick(moments) }));
  return { days, since, until, moments, users, channels, messages, edits, replies };
}

/** Puts a case on the sandbox: each record created (or edited) at its moment of the sandbox's clock. */
async function putOnSandbox(bed: ExportBed, c: Case, setClock: (micros: bigint) => void): Promise<void> {
  const client = bed.client;
  const importAt = async (kind: 'users' | 'channels' | 'messages', items: unknown[], at: bigint) => {
    if (items.length === 0) return;
    setClock(at);
    const path = join(bed.tempDir(), `${kind}.json`);
    writeFileSync(path, stringifyJson(items));
    const job = await client.jobs.wait((await client.imports.upload(kind, { path })).id, { initialIntervalMs: 5 });
    if (job.state !== 'FINISHED') throw new Error(`${kind} import at ${at} ended ${job.state}`);
  };
  for (const at of c.moments)
    await importAt('users', c.users.flatMap((u, i) => (u.at === at ? [{ name: u.name, displayName: u.displayName, isGuest: u.isGuest, properties: {}, idempotencyKey: `u${i}` }] : [])), at);
  const members = c.users.map((u) => u.name);
  await importAt('channels', c.channels.map((ch, i) => ({ type: 'PUBLIC', name: ch.name, displayName: ch.displayName, members, creator: members[0], idempotencyKey: `c${i}` })), c.moments[0]!);
  const channelIds = new Map<string, Int64>();
  for await (const ch of client.channels.list()) channelIds.set(ch.name ?? '', ch.id);
  for (const at of c.moments) {
    const items = c.messages.flatMap((m, i) =>
      m.at === at
        ? [{ type: m.user ? 'TEXT' : 'SYSTEM_TEXT', channelId: channelIds.get(c.channels[m.channel]!.name), body: m.body, ...(m.user ? { user: m.user } : {}), ...(m.groupTag ? { groupTag: m.groupTag } : {}), properties: { i }, idempotencyKey: `m${i}` }]
        : [],
    );
    await importAt('messages', items, at);
  }
  // Imports give no ids: find each generated message by its index in properties.
  const byIndex = new Map<number, Message>();
  for await (const m of client.messages.list()) if (typeof m.properties?.i === 'number') byIndex.set(m.properties.i, m);
  for (const e of c.edits) {
    setClock(e.at);
    const patch = { ...(e.body ? { body: e.body } : {}), groupTag: e.groupTag };
    const answer = await client.send({ operation: 'edit a message', method: 'PATCH', path: `/messages/${byIndex.get(e.message)!.id}`, body: createMergePatchBody(patch), retry: 'never' });
    await answer.body.dump();
    if (answer.status !== 200) throw new Error(`editing message ${e.message} answered ${answer.status}`);
  }
  for (const r of c.replies) {
    setClock(r.at);
    const thread = /\/threads\/(\d+)$/.exec(byIndex.get(r.message)!._links!.replies!.href)![1]!;
    await client.threads.send(BigInt(thread), { type: 'TEXT', body: r.body, user: { username: r.user } });
  }
}

type Row = Record<string, unknown>;

interface Expected {
  /** Message rows by the UTC day of their created_time, sorted by id. */
  messages: Map<string, Row[]>;
  messagesRead: number;
  users: Row[];
}

/** One export run as the oracle sees it: its days (the window), and the TIMESTAMP unit of its output. */
interface Run {
  days: string[];
  unit: 'us' | 'ms';
}

const windowOfRun = (run: Run) => ({ since: `${run.days[0]}T00:00:00.000Z`, until: `${dayOf(microsOfDay(run.days.at(-1)!) + MICROS_PER_DAY)}T00:00:00.000Z`, days: run.days });
const rowsOn = (e: Expected, day: string) => e.messages.get(day) ?? [];
const outsideOf = (e: Expected, run: Run) => e.messagesRead - run.days.reduce((n, d) => n + rowsOn(e, d).length, 0);

/** In milliseconds, digits past the millisecond are dropped: the instant is floored (before 1970 too). */
const TIMESTAMPS = ['created_time', 'last_edited_time', 'last_message_time'];
function inUnit(row: Row, unit: Run['unit']): Row {
  if (unit === 'us') return row;
  const floored = (v: unknown) => (typeof v === 'bigint' ? v - (((v % 1000n) + 1000n) % 1000n) : v);
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, TIMESTAMPS.includes(k) ? floored(v) : v]));
}

const byId = (a: Row, b: Row) => ((a.id as bigint) < (b.id as bigint) ? -1 : (a.id as bigint) > (b.id as bigint) ? 1 : 0);

/**
 * The oracle, from docs/export.md: a message row goes to the UTC day of its created_time (an edit does not
 * move it), rows of other days are only counted; users are all users, labelled with the window's last day.
 * Values are what the API answers, in the output's snake_case columns and types.
 */
async function expectedOutput(bed: ExportBed): Promise<Expected> {
  const client = bed.client;
  const channels = new Map((await collect(client.channels.list())).map((ch) => [BigInt(ch.id), ch.name ?? null]));
  const messages = await collect(client.messages.list({ pageSize: 100 }));
  const byDay = new Map<string, Row[]>();
  const perUser = new Map<bigint, { count: bigint; last: bigint }>();
  for (const m of messages) {
    const created = microsOf(m.createdTime)!;
    if (m.user) {
      const s = perUser.get(BigInt(m.user.id)) ?? { count: 0n, last: created };
      perUser.set(BigInt(m.user.id), { count: s.count + 1n, last: created > s.last ? created : s.last });
    }
    const day = byDay.get(dayOf(created)) ?? byDay.set(dayOf(created), []).get(dayOf(created))!;
    day.push({
      id: BigInt(m.id),
      type: m.type,
      channel_id: BigInt(m.channelId!),
      channel_name: channels.get(BigInt(m.channelId!)) ?? null,
      user_id: m.user ? BigInt(m.user.id) : null,
      username: m.user?.name ?? null,
      body_length: m.body?.length ?? 0,
      replies_count: BigInt(m.repliesCount ?? 0),
      reactions_count: 0n,
      group_tag: m.groupTag ?? null,
      created_time: created,
      last_edited_time: microsOf(m.lastEditedTime),
    });
  }
  const users: Row[] = [];
  for (const u of await collect(client.users.list())) {
    const page = await client.send({ operation: 'list a user’s channels', method: 'GET', path: `/users/${u.id}/channels`, query: { size: '1' }, retry: 'idempotent' });
    const s = perUser.get(BigInt(u.id));
    users.push({
      id: BigInt(u.id),
      name: u.name,
      display_name: u.displayName ?? null,
      type: u.type ?? null,
      is_guest: u.isGuest ?? null,
      created_time: microsOf(u.createdTime),
      channels_count: BigInt((JSON.parse(await page.body.text()) as { page: { totalElements: number } }).page.totalElements),
      messages_count: s?.count ?? 0n,
      last_message_time: s?.last ?? null,
    });
  }
  for (const rows of byDay.values()) rows.sort(byId);
  return { messages: byDay, messagesRead: messages.length, users: users.sort(byId) };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What a successful run published at `root` (a local folder, or a local copy of an S3 prefix). */
async function checkPublished(root: string, run: Run, e: Expected, format: OutputFormat, runId: string, urlBase: string): Promise<void> {
  const partitions: Array<['messages' | 'users', string, Row[]]> = [...run.days.map((d) => ['messages', d, rowsOn(e, d)] as ['messages', string, Row[]]), ['users', run.days.at(-1)!, e.users]];
  const files = listFiles(root).filter((f) => !f.startsWith('_staging/') && !f.startsWith('_rejects/'));
  const expectedFiles: Array<string | RegExp> = [];
  for (const [dataset, date, rows] of partitions) {
    const where = `${dataset} dt=${date}`;
    const folder = `${dataset}/dt=${date}`;
    const actual = (await readDataset(root, dataset, date)).sort(byId);
    expect(actual.length, `${where}: rows`).toBe(rows.length);
    expect(actual, `${where}: every row exactly once, every value exact`).toEqual(rows.map((r) => inUnit(r, run.unit)));
    const manifest = readManifest(root, dataset, date);
    expect(manifest, `${where}: manifest`).toMatchObject({ dataset, date, runId, format, rowCount: rows.length });
    expect(manifest.details, `${where}: manifest details`).toMatchObject({
      timestampUnit: run.unit,
      rowsRead: dataset === 'messages' ? e.messagesRead : e.users.length,
      rowsRejected: 0,
      rowsOutsideWindow: dataset === 'messages' ? outsideOf(e, run) : 0,
      partitionedBy: dataset === 'messages' ? 'created_time' : null,
      window: windowOfRun(run),
      rejectsFile: null,
      unknownColumns: [],
      missingColumns: [],
    });
    for (const file of manifest.files) {
      const bytes = readFileSync(join(root, folder, file.name));
      expect({ bytes: file.bytes, sha256: file.sha256, url: file.url }, `${where}: ${file.name}`).toEqual({ bytes: bytes.length, sha256: sha256(bytes), url: `${urlBase}/${folder}/${file.name}` });
      expect((await readDataFile(join(root, folder, file.name))).length, `${where}: ${file.name} rows`).toBe(file.rows);
    }
    expect(manifest.totalBytes).toBe(manifest.files.reduce((n, f) => n + f.bytes, 0));
    expect(manifest.entries).toEqual(manifest.files.map((f) => ({ url: f.url, mandatory: true, meta: { content_length: f.bytes, record_count: f.rows } })));
    expectedFiles.push(`_manifests/${folder}/manifest.json`, `${folder}/_SUCCESS`, ...manifest.files.map((f) => `${folder}/${f.name}`));
    for (const f of manifest.files) expect(f.name, `${where}: named by the run`).toMatch(new RegExp(`^part-${runId}-.*\\.${EXTENSION[format].replace('.', '\\.')}$`));
  }
  // Nothing else: no partition outside the window, no leftover of an earlier run.
  expect(files).toEqual(expectedFiles.sort());
}

function checkReport(report: ExportReport, run: Run, e: Expected): void {
  expect(report.status).toBe('succeeded');
  expect(report.window).toEqual(windowOfRun(run));
  const messages = report.datasets.find((d) => d.dataset === 'messages')!;
  expect(messages).toMatchObject({ rowsRead: e.messagesRead, rowsWritten: e.messagesRead - outsideOf(e, run), rowsRejected: 0, rowsOutsideWindow: outsideOf(e, run), rejectsFile: null });
  expect(messages.partitions.map((p) => [p.date, p.rowsWritten])).toEqual(run.days.map((d) => [d, rowsOn(e, d).length]));
  expect(report.datasets.find((d) => d.dataset === 'users')).toMatchObject({ rowsRead: e.users.length, rowsWritten: e.users.length, rowsRejected: 0, rowsOutsideWindow: 0 });
  expect(report.totals.balanced).toBe(true);
}

/**
 * A run of one day killed mid-publication: the day's folder moved aside into staging, the new one not yet
 * in place, its rejects aside; and the rejects an earlier run of that day published.
 */
function crashMidPublication(root: string, day: string, format: OutputFormat): void {
  const staged = join(root, '_staging', 'messages', `dt=${day}`, 'crashed');
  mkdirSync(join(staged, 'data'), { recursive: true });
  writeFileSync(join(staged, 'data', `part-crashed-00000.${EXTENSION[format]}`), 'half a file');
  if (existsSync(join(root, 'messages', `dt=${day}`))) renameSync(join(root, 'messages', `dt=${day}`), join(staged, 'previous'));
  mkdirSync(join(root, '_rejects', '_staging', 'messages', `dt=${day}`), { recursive: true });
  writeFileSync(join(root, '_rejects', '_staging', 'messages', `dt=${day}`, 'rejects-crashed.ndjson'), '{"line":1}\n');
  mkdirSync(join(root, '_rejects', 'messages', `dt=${day}`), { recursive: true });
  writeFileSync(join(root, '_rejects', 'messages', `dt=${day}`, 'rejects-older.ndjson'), '{"line":2}\n');
}

/** The day spool a kill -9 leaves in the temp folder: it names a process that is gone. */
function killedSpool(day: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'chatport-export-days-'));
  writeFileSync(join(dir, 'owner.json'), JSON.stringify({ pid: spawnSync(process.execPath, ['-e', '']).pid, host: hostname(), token: 'ee', startedAt: '2026-11-20T00:00:00.000Z' }));
  writeFileSync(join(dir, `${day}.v8`), Buffer.alloc(64));
  return dir;
}

let s3: S3Server;
let s3client: S3Client;
beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket('lake');
  s3client = s3.client();
});
afterAll(() => s3.close());

async function s3Keys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: `${prefix}/`, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** A local copy of everything under an S3 prefix, to be read like a local output. */
async function mirror(prefix: string, dir: string): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  for (const key of await s3Keys(prefix)) {
    const object = await s3client.send(new GetObjectCommand({ Bucket: 'lake', Key: key }));
    const path = join(dir, key.slice(prefix.length + 1));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await object.Body!.transformToByteArray());
  }
  return dir;
}

describe.each((process.env.DIFF_SEEDS ?? '1,2,3,4,5').split(',').map(Number))('analytics export, seed %i', (seed) => {
  let bed: ExportBed;
  let c: Case;
  let e: Expected;
  let clockMs = 0;
  beforeAll(async () => {
    c = generateCase(seed);
    const setClock = (micros: bigint) => {
      // A clock with sub-millisecond digits: the sandbox stamps records with them.
      clockMs = Number(micros) / 1000;
    };
    setClock(c.moments[0]!);
    bed = await startExportBed({ clock: () => clockMs, idBase: 2n ** 53n + 4097n }, { users: 0, messages: 0 });
    await putOnSandbox(bed, c, setClock);
    e = await expectedOutput(bed);
  }, 60_000);
  afterAll(() => bed.close());

  const whole = (): Run => ({ days: c.days, unit: 'us' });
  const window = () => ({ sinceMs: Date.parse(`${c.since}T00:00:00Z`), untilMs: Date.parse(`${c.until}T00:00:00Z`) });
  const [localFormat, s3Format, cliFormat] = [0, 1, 2].map((k) => FORMATS[(seed + k) % FORMATS.length]!) as [OutputFormat, OutputFormat, OutputFormat];
  /** Row groups of 7 rows, and a file size limit that every file passes: files roll at whatever boundary they can. */
  const rolling = { maxFileBytes: 1, parquet: { rowGroupRows: 7 } };

  it('the sandbox holds every generated time to the microsecond (the cases are there)', async () => {
    const held = new Map<unknown, bigint | null>();
    for await (const m of bed.client.messages.list()) held.set(m.properties?.i, microsOf(m.createdTime));
    expect(c.messages.map((_, i) => held.get(i))).toEqual(c.messages.map((m) => m.at));
  });

  it(`locally in ${localFormat}: every row once, in its day, exact; a rerun and a run after a crash publish the same`, async () => {
    const root = bed.tempDir();
    const options = (runId: string): RunExportOptions => ({ datasets: ['messages', 'users'], to: root, format: localFormat, window: window(), runId, job: { pollIntervalMs: 5 } });
    const urlBase = `file://${root}`;
    checkReport(await runExport(options('first'), { client: bed.client }), whole(), e);
    await checkPublished(root, whole(), e, localFormat, 'first', urlBase);

    checkReport(await runExport(options('again'), { client: bed.client }), whole(), e);
    await checkPublished(root, whole(), e, localFormat, 'again', urlBase);

    crashMidPublication(root, c.days[1]!, localFormat);
    const spool = killedSpool(c.days[0]!);
    checkReport(await runExport(options('after-crash'), { client: bed.client }), whole(), e);
    await checkPublished(root, whole(), e, localFormat, 'after-crash', urlBase);
    expect(existsSync(spool), 'the killed run’s spool is removed').toBe(false);
    expect(listFiles(root).filter((f) => f.startsWith('_staging/') || f.startsWith('_rejects/')), 'no staging or rejects left').toEqual([]);
  }, 60_000);

  it('one day at a time in each format (Parquet’s one-partition path), in small row groups, in milliseconds or microseconds', async () => {
    for (const [k, day] of c.days.entries()) {
      const format = FORMATS[(seed + k) % FORMATS.length]!;
      const run: Run = { days: [day], unit: (seed + k) % 2 === 0 ? 'ms' : 'us' };
      const root = bed.tempDir();
      const report = await runExport({ datasets: ['messages', 'users'], to: root, format, date: day, runId: `day${k}`, timestampUnit: run.unit, job: { pollIntervalMs: 5 }, ...rolling }, { client: bed.client });
      checkReport(report, run, e);
      await checkPublished(root, run, e, format, `day${k}`, `file://${root}`);
    }
  }, 60_000);

  it(`to S3 in ${s3Format}, its download cut midway, and again after a crashed attempt`, async () => {
    const prefix = `seed-${seed}`;
    const options = (runId: string): RunExportOptions => ({
      datasets: ['messages', 'users'], to: `s3://lake/${prefix}`, format: s3Format, window: window(), runId, job: { pollIntervalMs: 5 }, rejectsDir: bed.tempDir(), download: { resumeDelayMs: 1 }, ...rolling,
      s3: { endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } },
    });
    const copy = join(bed.tempDir(), 'copy');
    bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    const first = await runExport(options('s3first'), { client: bed.client });
    bed.sandbox.setFaults([]);
    checkReport(first, whole(), e);
    expect(first.datasets.reduce((n, d) => n + d.download.resumes, 0), 'one download resumed').toBe(1);
    await checkPublished(await mirror(prefix, copy), whole(), e, s3Format, 's3first', `s3://lake/${prefix}`);

    // A crashed attempt: the date's _SUCCESS removed, one of its uploads left behind.
    const day = `${prefix}/messages/dt=${c.days[2]}`;
    await s3client.send(new DeleteObjectCommand({ Bucket: 'lake', Key: `${day}/_SUCCESS` }));
    await s3client.send(new PutObjectCommand({ Bucket: 'lake', Key: `${day}/part-s3first-0badf00d-00000.${EXTENSION[s3Format]}`, Body: 'half' }));
    checkReport(await runExport(options('s3first'), { client: bed.client }), whole(), e);
    await checkPublished(await mirror(prefix, copy), whole(), e, s3Format, 's3first', `s3://lake/${prefix}`);
  }, 60_000);

  it(`the CLI in ${cliFormat}: exit 0 and the same output`, async () => {
    const root = bed.tempDir();
    const run: Run = { days: c.days, unit: seed % 2 === 0 ? 'ms' : 'us' };
    const env = { CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret };
    const result = await runCli(
      ['export', 'all', '--to', root, '--format', cliFormat, '--since', c.since, '--until', c.until, '--timestamp-unit', run.unit, '--run-id', 'cli', '--poll-interval', '0.01', '--json'],
      env,
    );
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(ExitCode.OK);
    checkReport(JSON.parse(result.stdout) as ExportReport, run, e);
    await checkPublished(root, run, e, cliFormat, 'cli', `file://${root}`);
  }, 60_000);
});
