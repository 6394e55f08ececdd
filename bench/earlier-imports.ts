/**
 * What a `mode: upsert` or `thread:` run pays to learn what earlier runs of its state folder imported
 * (src/pipeline/state/earlier-imports.ts: a record deleted on the platform since is skipped, not re-sent).
 * A synthetic state folder of `--runs-before` finished runs × `--messages` messages each (chunks of 1,000
 * items shaped like a CSV import's), then, taken in turn in their own measured processes:
 * - `chunks`: no imported index (a state folder of an older version, or the first read): the runs' chunk
 *   files are read (and each run's index written, where the code writes it);
 * - `index`: every run's imported index present: only they are read.
 * Prints CPU and peak RSS per candidate (min / median / max) and index / chunks per pair.
 *
 *   node dist-bench/bench/earlier-imports.js [--runs-before 10] [--messages 100000] [--pairs 3]
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile, appendFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { forEachEarlierImport, keepImportedIndex } from '../src/pipeline/state/earlier-imports.js';
import { RunPaths } from '../src/pipeline/state/run-paths.js';
import { runMeasured } from './lib/measure.js';
import { workDir } from './lib/paths.js';
import { spread } from './lib/spread.js';

const CHUNK = 1000;
const { values } = parseArgs({ options: { 'runs-before': { type: 'string', default: '10' }, messages: { type: 'string', default: '100000' }, pairs: { type: 'string', default: '3' }, read: { type: 'string' }, state: { type: 'string' } } });

if (values.read !== undefined) await readOnce(values.state!);
else await compare(Number(values['runs-before']), Number(values.messages), Number(values.pairs));

/** The child: every earlier import of the messages stage visited once, as an upsert run's look-up does. */
async function readOnce(state: string): Promise<void> {
  let visited = 0;
  await forEachEarlierImport(new RunPaths(state), 'messages', 'the-run-reading', (item) => {
    if (item.channelId !== undefined && item.properties !== undefined) visited++;
  });
  console.log(`visited ${visited}`);
}

async function compare(runs: number, messages: number, pairs: number): Promise<void> {
  const state = workDir(`earlier-imports-${runs}x${messages}`);
  await writeStateFolder(state, runs, messages);
  const paths = new RunPaths(state);
  const script = fileURLToPath(import.meta.url);
  const cpu: Record<'chunks' | 'index', number[]> = { chunks: [], index: [] };
  const rss: Record<'chunks' | 'index', number[]> = { chunks: [], index: [] };
  const ratios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    // Order alternates: the machine's speed drifts.
    const order: Array<'chunks' | 'index'> = pair % 2 === 0 ? ['chunks', 'index'] : ['index', 'chunks'];
    const taken: Partial<Record<'chunks' | 'index', number>> = {};
    for (const mode of order) {
      await rm(`${state}/imported`, { recursive: true, force: true });
      if (mode === 'index') for (let r = 0; r < runs; r++) await keepImportedIndex(paths, runId(r));
      const m = await runMeasured(script, ['--read', mode, '--state', state]);
      if (m.code !== 0 || !m.stdout.includes(`visited ${runs * messages}`)) throw new Error(`${mode} read failed (exit ${m.code}): ${m.stdout} ${m.stderrTail}`);
      cpu[mode].push(m.cpuMs);
      rss[mode].push(m.maxRssMb);
      taken[mode] = m.cpuMs;
    }
    ratios.push(taken.index! / taken.chunks!);
  }
  console.log(`${runs} earlier runs × ${messages.toLocaleString('en-US')} messages, ${pairs} pairs taken in turn (CPU of the reading process, min / median / max)`);
  console.log('| read | CPU ms | peak RSS MB |');
  console.log('|---|---|---|');
  for (const mode of ['chunks', 'index'] as const) console.log(`| ${mode} | ${spread(cpu[mode], 0).text} | ${spread(rss[mode], 0).text} |`);
  console.log(`index / chunks per pair: ${spread(ratios, 3).text}`);
  await rm(state, { recursive: true, force: true });
}

function runId(r: number): string {
  return `01BENCH${String(r).padStart(19, '0')}`;
}

/** Finished runs, each with its messages in chunk files every job of which FINISHED, and their journal. */
async function writeStateFolder(state: string, runs: number, messages: number): Promise<void> {
  await rm(state, { recursive: true, force: true });
  await mkdir(state, { recursive: true });
  const paths = new RunPaths(state);
  const at = '2026-11-28T00:00:00.000Z';
  for (let r = 0; r < runs; r++) {
    const id = runId(r);
    const events: object[] = [{ t: 'run-started', runId: id, pipeline: 'bench', at, attempt: 1 }];
    await mkdir(`${paths.runDir(id)}/chunks/messages`, { recursive: true });
    for (let seq = 0; seq * CHUNK < messages; seq++) {
      const items = [];
      for (let i = seq * CHUNK; i < Math.min(messages, (seq + 1) * CHUNK); i++) items.push(messageItem(r, i));
      const text = JSON.stringify(items);
      await writeFile(paths.chunkFile(id, 'messages', seq), text);
      events.push({ t: 'chunk-written', stage: 'messages', seq, file: paths.chunkFile(id, 'messages', seq), records: items.length, bytes: text.length, sha256: '' });
      events.push({ t: 'chunk-done', stage: 'messages', seq, imported: items.length, refused: 0 });
    }
    events.push({ t: 'run-ended', runId: id, status: 'succeeded', at });
    await appendFile(paths.journal, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }
}

/** A message item as a CSV pipeline's chunk holds it (the same source keys every run, as a nightly import sends). */
function messageItem(run: number, i: number) {
  const key = `m${i}`;
  return {
    type: 'TEXT',
    body: `message ${i} of the nightly export, with some words to give it the length of a chat line`,
    user: `user${i % 500}`,
    channelId: 1_000_000 + (i % 200),
    properties: { tag: 'nightly', chatportKey: key, run },
    idempotencyKey: `cp1-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`,
  };
}
