/**
 * The Slack messages pass's mapping alone (mapDay: parse, map, idempotency keys) over a generated export: no
 * zip reading (every day file is read into memory first), no import. A change to the mapping is a part of the
 * whole migration's CPU, under the machine's noise end to end, so it is measured here. Each measurement is a
 * child process of its own (one warm-up pass, then the CPU of three, averaged); with `--against`, the two
 * builds are taken in turn, run after run, and each pair's ratio is printed with min / median / max. Each child
 * also prints the sha256 of every day's outcomes as JSON: two builds that map alike print the same digest.
 *
 *   node dist-bench/bench/slack-mapping.js [--build <a dist/>] [--against <another checkout's dist/>] [--runs 6] [--messages 100000] [--zip <export.zip>]
 *
 * `--build`: the build measured first, instead of this checkout's dist/ (two commits' builds side by side).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { generateSlackExport } from '../fixtures/slack/generator/index.js';
import { ROOT, workDir } from './lib/paths.js';
import { spread } from './lib/spread.js';

type Load = (path: string) => Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Day {
  channelId: string;
  file: string;
  messages: unknown[];
  marks: unknown;
  laterDay: string | null;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Every day file of every conversation, in the messages pass's order (readMessageDays), read into memory. */
async function readDays(load: Load, zip: string): Promise<{ first: unknown; days: Day[] }> {
  const sources = await load('sources/slack/index.js');
  const { readSlackFirstPass } = await load('pipeline/slack/first-pass.js');
  const exp = await sources.openSlackExport(zip);
  try {
    const first = await readSlackFirstPass(exp, { export: zip, systemMessages: 'import' });
    const days: Day[] = [];
    for (const channel of first.directory.channels.values()) {
      const folder = sources.findConversationFolder(first.folders, { id: channel.id, name: channel.record.name });
      if (folder === undefined) continue;
      const files: string[] = first.folders.get(folder);
      for await (const day of sources.readConversationDays(exp, files)) {
        if (!('messages' in day)) continue;
        const next = files[files.indexOf(day.file) + 1];
        const laterDay = next === undefined ? null : (/(\d{4}-\d{2}-\d{2})\.json$/.exec(next)?.[1] ?? '');
        days.push({ channelId: channel.id, file: day.file, messages: day.messages, marks: day, laterDay });
      }
    }
    return { first, days };
  } finally {
    await exp.close();
  }
}

/** One pass of mapDay over every day, as readSlackStageBatches makes keys; the digest of the outcomes when asked. */
async function mapPass(load: Load, first: any, days: readonly Day[], digest?: ReturnType<typeof createHash>): Promise<number> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const slack = await load('transform/slack/index.js');
  const { idempotencyKeysOf } = await load('transform/index.js');
  const makers = new Map<string, (key: string) => string>();
  const keyFor = (kind: string, sourceKey: string) => {
    let make = makers.get(kind);
    if (make === undefined) makers.set(kind, (make = idempotencyKeysOf('bench', kind)));
    return make!(sourceKey);
  };
  const mapper = slack.createSlackMessageMapper(slack.createSlackMappingContext(first.directory, { keyFor, systemMessages: 'import' }));
  let outcomes = 0;
  let channel: string | undefined;
  for (const day of days) {
    if (channel !== undefined && channel !== day.channelId) mapper.endChannel(channel);
    channel = day.channelId;
    const mapped = mapper.mapDay(day.channelId, day.file, day.messages, day.marks, day.laterDay);
    outcomes += mapped.length;
    digest?.update(JSON.stringify(mapped));
  }
  return outcomes;
}

/** One measurement, in this process: the CPU ms of one mapping pass with the build at `build`, and the outcomes' digest. */
async function child(build: string, zip: string): Promise<void> {
  const load: Load = (path: string) => import(pathToFileURL(join(build, path)).href);
  const { first, days } = await readDays(load, zip);
  const digest = createHash('sha256');
  const outcomes = await mapPass(load, first, days, digest);
  const start = process.cpuUsage();
  for (let k = 0; k < 3; k++) await mapPass(load, first, days);
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ build, outcomes, digest: digest.digest('hex'), cpuMs: Math.round((used.user + used.system) / 3000) })}\n`);
}

const run = promisify(execFile);

async function measure(build: string, zip: string): Promise<{ cpuMs: number; digest: string; outcomes: number }> {
  const { stdout } = await run(process.execPath, [fileURLToPath(import.meta.url), '--child', build, zip], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { cpuMs: number; digest: string; outcomes: number };
}

async function exportZip(messages: number): Promise<string> {
  const zip = argument('--zip') ?? join(workDir('slack-mapping'), `export-${messages}.zip`);
  if (!existsSync(zip)) {
    await mkdir(workDir('slack-mapping'), { recursive: true });
    await generateSlackExport({ out: zip, seed: 1, messages });
  }
  return zip;
}

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--child');
  if (childAt >= 0) return child(process.argv[childAt + 1]!, process.argv[childAt + 2]!);
  const runs = Number(argument('--runs') ?? 6);
  const zip = await exportZip(Number(argument('--messages') ?? 100_000));
  const builds = [argument('--build') ?? join(ROOT, 'dist'), ...(argument('--against') === undefined ? [] : [argument('--against')!])];
  const cpu: number[][] = builds.map(() => []);
  const digests = new Set<string>();
  process.stdout.write(`| run | ${builds.map((b) => `${b} CPU ms`).join(' | ')} |${builds.length > 1 ? ' ratio |' : ''}\n`);
  for (let i = 1; i <= runs; i++) {
    for (let b = 0; b < builds.length; b++) {
      const m = await measure(builds[b]!, zip);
      cpu[b]!.push(m.cpuMs);
      digests.add(`${m.outcomes} outcomes, sha256 ${m.digest}`);
    }
    const ratio = builds.length > 1 ? ` ${(cpu[0]![i - 1]! / cpu[1]![i - 1]!).toFixed(2)} |` : '';
    process.stdout.write(`| ${i} | ${cpu.map((c) => c[i - 1]).join(' | ')} |${ratio}\n`);
  }
  builds.forEach((b, k) => process.stdout.write(`mapDay, ${b}: CPU ms per pass, min / median / max: ${spread(cpu[k]!, 0).text}\n`));
  if (builds.length > 1) process.stdout.write(`this build / ${builds[1]}, per pair, min / median / max: ${spread(cpu[0]!.map((c, k) => c / cpu[1]![k]!), 2).text}\n`);
  process.stdout.write(`outcomes: ${[...digests].join('; ')}${digests.size === 1 ? ' (the same from every run)' : ' — THE BUILDS MAP DIFFERENTLY'}\n`);
  if (digests.size !== 1) process.exitCode = 1;
}

await main();
