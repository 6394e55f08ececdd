/**
 * How many message items per second the sandbox ingests (issue 2: "the sandbox must never be what
 * limits a benchmark of chatport"). Starts an in-memory sandbox, uploads one messages import file of
 * `--items` items shaped like the pipeline's (idempotency key, properties.source), and waits for the job.
 *
 *   node dist-bench/bench/sandbox-ingest.js [--items 500000] [--runs 3]
 *
 * Prints one JSON line per run: items/s end to end (upload start → FINISHED, as a client sees it) and for
 * the job alone (createdTime → endedTime: validation + apply).
 */
import { parseArgs } from 'node:util';
import { startSandbox } from '../src/sandbox/index.js';
import { createLogger } from '../src/shared/logger.js';
import { spread } from './lib/spread.js';

const { values } = parseArgs({ options: { items: { type: 'string', default: '500000' }, runs: { type: 'string', default: '3' } } });
const items = Number(values.items);
const runs = Number(values.runs);

const sandbox = await startSandbox({ port: 0, logger: createLogger({ level: process.env.CHATPORT_LOG_LEVEL ?? 'warn' }) });
const token = sandbox.issueToken();
const auth = { authorization: `Bearer ${token}` };

interface JobBody {
  id: number;
  state: string;
  createdTime: string;
  endedTime?: string;
}

async function call<T = JobBody>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
  return (await response.json()) as T;
}

function multipart(json: string): { body: Blob; type: string } {
  const boundary = 'bench-boundary-7f3a';
  return {
    body: new Blob([`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="m.json"\r\nContent-Type: application/json\r\n\r\n`, json, `\r\n--${boundary}--\r\n`]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

async function runImport(path: string, json: string): Promise<{ job: JobBody; elapsedMs: number }> {
  const { body, type } = multipart(json);
  const started = performance.now();
  let job = await call(path, { method: 'POST', body, headers: { 'content-type': type } });
  while (job.state !== 'FINISHED' && job.state !== 'FAILED') {
    await new Promise((r) => setTimeout(r, 20));
    job = await call(`/jobs/${job.id}`);
  }
  return { job, elapsedMs: performance.now() - started };
}

const users = ['ann', 'ben', 'cal'].map((name) => ({ name, displayName: name, isGuest: false, properties: {}, idempotencyKey: `u:${name}` }));
await runImport('/imports/users', JSON.stringify(users));
const channel = await call<{ id: number }>('/channels', { method: 'POST', body: JSON.stringify({ type: 'PUBLIC', name: 'bench' }), headers: { 'content-type': 'application/vnd.chat+json' } });

const endToEnd: number[] = [];
const jobAlone: number[] = [];
for (let run = 0; run < runs; run++) {
  // Serialized up front, so the bench's own objects are garbage before the sandbox starts working.
  const file = JSON.stringify(Array.from({ length: items }, (_, i) => ({
    type: 'TEXT',
    channelId: channel.id,
    user: ['ann', 'ben', 'cal'][i % 3],
    body: `message ${i} of run ${run}: the quick brown fox jumps over the lazy dog`,
    properties: { source: { ts: `${1_700_000_000 + i}.000100`, file: 'general/2024-01-01.json' } },
    idempotencyKey: `bench:${run}:${i}`,
  })));
  const { job, elapsedMs } = await runImport('/imports/messages', file);
  const jobMs = Date.parse(job.endedTime ?? '') - Date.parse(job.createdTime);
  console.log(
    JSON.stringify({
      run,
      items,
      state: job.state,
      endToEndMs: Math.round(elapsedMs),
      itemsPerSecondEndToEnd: Math.round(items / (elapsedMs / 1000)),
      jobMs,
      itemsPerSecondJob: Math.round(items / (jobMs / 1000)),
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  );
  endToEnd.push(items / (elapsedMs / 1000));
  jobAlone.push(items / (jobMs / 1000));
}
console.log(`items/s min / median / max of ${runs} runs: end to end ${spread(endToEnd, 0).text}; job alone ${spread(jobAlone, 0).text}`);
await sandbox.close();
