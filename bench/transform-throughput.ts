/**
 * Micro benchmark of the pure import core: records per second and CPU per record for
 *   baseline  csv-parse (objects) + JSON.stringify per record   (the issue's reference)
 *   parse     chatport's parseRecordBatches (CSV with line numbers)
 *   full      parseRecordBatches + mapping + validation + idempotency key + chunking
 * on a generated CSV of messages (default 200,000 rows; `--rows N`). Input is generated in memory and fed
 * as 64 KiB chunks, so no disk I/O is measured. Run: `node dist-bench/bench/transform-throughput.js`.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { parseRecordBatches } from '../src/formats/index.js';
import { Chunker, createStageProcessor, isOversize } from '../src/transform/index.js';
import { spread } from './lib/spread.js';

const rowsArg = process.argv.indexOf('--rows');
const ROWS = rowsArg === -1 ? 200_000 : Number(process.argv[rowsArg + 1]);
const CHANNELS = 50;

function generateCsv(rows: number): Buffer {
  const lines = ['id,channel,author,kind,text,sent_at,thread'];
  for (let i = 0; i < rows; i++) {
    const text = i % 10 === 0 ? `"Line one of ${i}\nline two, with ""quotes"""` : `Message number ${i} with some ordinary text in it`;
    lines.push(`m${i},c${i % CHANNELS},user${i % 997},TEXT,${text},2024-01-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z,${i % 5 === 0 ? `m${i - 1}` : ''}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function chunksOf(data: Buffer): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += 65_536) parts.push(data.subarray(i, i + 65_536));
  return Readable.from(parts);
}

interface Result {
  name: string;
  records: number;
  cpuMs: number;
  wallMs: number;
}

async function measure(name: string, run: () => Promise<number>): Promise<Result> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const records = await run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { name, records, cpuMs: (used.user + used.system) / 1000, wallMs };
}

async function baseline(data: Buffer): Promise<number> {
  let n = 0;
  let bytes = 0;
  for await (const record of chunksOf(data).pipe(parse({ columns: true }))) {
    bytes += JSON.stringify(record).length;
    n++;
  }
  if (bytes === 0) throw new Error('nothing serialized');
  return n;
}

async function parseOnly(data: Buffer): Promise<number> {
  let n = 0;
  for await (const batch of parseRecordBatches(chunksOf(data), { file: 'bench.csv', format: 'csv' })) for (const item of batch) if ('record' in item) n++;
  return n;
}

async function full(data: Buffer): Promise<number> {
  const channelIds = new Map(Array.from({ length: CHANNELS }, (_, i) => [`c${i}`, i + 1] as [string, number]));
  const process = createStageProcessor(
    {
      pipelineId: 'bench',
      stage: 'messages',
      key: 'id',
      channel: 'channel',
      mapping: { type: 'kind', body: 'text', user: 'author', properties: { source: { id: 'id', sentAt: { field: 'sent_at', type: 'date' }, replyTo: 'thread' } } },
    },
    { channelIds },
  );
  const chunker = new Chunker<number>({ maxRecords: 1000, maxBytes: 1_048_576 });
  let accepted = 0;
  let chunkBytes = 0;
  for await (const batch of parseRecordBatches(chunksOf(data), { file: 'bench.csv', format: 'csv' }))
    for (const item of batch) {
      const result = process(item);
      if (result.kind !== 'accepted') throw new Error(`unexpected ${result.kind} at line ${result.position.line}`);
      const done = chunker.add(result.item, result.position.index);
      if (isOversize(done)) throw new Error('oversize');
      for (const chunk of done) chunkBytes += chunk.bytes.length;
      accepted++;
    }
  for (const chunk of chunker.finish()) chunkBytes += chunk.bytes.length;
  if (chunkBytes === 0) throw new Error('no chunks');
  return accepted;
}

const data = generateCsv(ROWS);
console.log(`input: ${ROWS} rows, ${(data.length / 1e6).toFixed(1)} MB CSV (1 in 10 with a quoted newline), node ${process.version}`);
// One warm-up pass each, so all three are measured with optimized code.
await baseline(data.subarray(0, data.indexOf('\nm20000,')));
await parseOnly(data.subarray(0, data.indexOf('\nm20000,')));
await full(data.subarray(0, data.indexOf('\nm20000,')));
// Taken in turn, run after run (`--runs`, default 3): the three measured alike on a machine whose speed drifts.
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg === -1 ? 3 : Number(process.argv[runsArg + 1]);
const CANDIDATES: Array<[string, (data: Buffer) => Promise<number>]> = [
  ['baseline: csv-parse + JSON.stringify', baseline],
  ['parse: chatport parseRecordBatches', parseOnly],
  ['full: parse+map+validate+key+chunk', full],
];
const perRecord = CANDIDATES.map(() => [] as number[]);
const ratios = CANDIDATES.map(() => [] as number[]);
for (let run = 0; run < RUNS; run++) {
  const results: Result[] = [];
  for (const [name, candidate] of CANDIDATES) results.push(await measure(name, () => candidate(data)));
  results.forEach((r, i) => {
    if (r.records !== ROWS) throw new Error(`${r.name}: ${r.records} records, expected ${ROWS}`);
    perRecord[i]!.push((r.cpuMs * 1000) / r.records);
    ratios[i]!.push(r.cpuMs / results[0]!.cpuMs);
  });
}
console.log(`CPU µs per record and against the baseline, min / median / max of ${RUNS} runs:`);
CANDIDATES.forEach(([name], i) => console.log(`${name.padEnd(40)} ${spread(perRecord[i]!, 2).text.padStart(20)} µs  ${spread(ratios[i]!, 2).text}×`));
