/**
 * Reply threads benchmark (issue 13): N messages of which a share are replies (every thread a root and
 * `perThread` replies, threads spread over channels), imported by the built CLI (dist/) into the sandbox
 * (its own process), once with `threads: replies` and once with `threads: flatten`, taken in turn run by
 * run. The replies pass costs the difference: replies/s = replies ÷ (messages stage with replies − the same
 * stage flattened), and the chatport CPU per reply likewise. Prints every run and min/median/max.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/replies.js --messages 100000 --runs 3
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runMeasured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { spread } from './lib/spread.js';
import { CLI, workDir } from './lib/paths.js';

const WORK = workDir('replies');
const USERS = 50;
const CHANNELS = 20;

/** Every (perThread + 1)-th message is a root; the following perThread messages of its channel reply to it. */
async function generate(dir: string, messages: number, perThread: number): Promise<{ replies: number }> {
  await mkdir(dir, { recursive: true });
  const users = Array.from({ length: USERS }, (_, i) => `u${i},bench-user-${i},User ${i}`);
  await writeFile(join(dir, 'users.csv'), `id,username,display\n${users.join('\n')}\n`);
  const members = Array.from({ length: USERS }, (_, i) => `bench-user-${i}`).join('|');
  await writeFile(join(dir, 'channels.csv'), `key,name,members\n${Array.from({ length: CHANNELS }, (_, c) => `c${c},bench-channel-${c},${members}`).join('\n')}\n`);
  const lines = ['id,channel,author,text,parent'];
  const root = new Array<string>(CHANNELS).fill('');
  let replies = 0;
  for (let i = 0; i < messages; i++) {
    const c = i % CHANNELS;
    const n = Math.floor(i / CHANNELS);
    const isRoot = n % (perThread + 1) === 0;
    if (isRoot) root[c] = `m${i}`;
    else replies++;
    lines.push(`m${i},c${c},bench-user-${i % USERS},message ${i} of the benchmark,${isRoot ? '' : root[c]}`);
  }
  await writeFile(join(dir, 'messages.csv'), `${lines.join('\n')}\n`);
  return { replies };
}

const pipeline = (threads: string) => `name: bench-replies-${threads}
options: { chunkRecords: 5000, chunkBytes: 4194304, concurrency: 8, threads: ${threads} }
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, thread: parent, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

async function runOnce(dir: string, threads: 'replies' | 'flatten', run: number) {
  const sandbox = await startSandboxProcess();
  const state = join(dir, `state-${threads}-${run}`);
  try {
    const measured = await runMeasured(CLI, ['import', join(dir, `${threads}.yaml`), '--state', state, '--json', '--no-verify'], {
      CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn',
    });
    if (measured.code !== 0) throw new Error(`import exited ${measured.code}: ${measured.stderrTail}`);
    const report = JSON.parse(measured.stdout) as { stages: { messages: { imported: number; read: number; durationMs: number; replies?: number } } };
    const m = report.stages.messages;
    if (m.imported !== m.read) throw new Error(`imported ${m.imported} of ${m.read}`);
    return { stageMs: m.durationMs, cpuMs: measured.cpuMs, replies: m.replies ?? 0 };
  } finally {
    await sandbox.stop();
    await rm(state, { recursive: true, force: true });
  }
}

const stats = (xs: number[]) => spread(xs);

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '100000' }, 'per-thread': { type: 'string', default: '4' }, runs: { type: 'string', default: '3' } } });
  const messages = Number(values.messages);
  const runs = Number(values.runs);
  const dir = join(WORK, String(messages));
  await rm(dir, { recursive: true, force: true });
  const { replies } = await generate(dir, messages, Number(values['per-thread']));
  await writeFile(join(dir, 'replies.yaml'), pipeline('replies'));
  await writeFile(join(dir, 'flatten.yaml'), pipeline('flatten'));
  process.stdout.write(`${messages.toLocaleString('en-US')} messages, ${replies.toLocaleString('en-US')} of them replies, ${runs} pairs taken in turn\n`);
  const perSecond: number[] = [];
  const cpuPerReply: number[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const threaded = await runOnce(dir, 'replies', run);
      const flat = await runOnce(dir, 'flatten', run);
      if (threaded.replies !== replies) throw new Error(`${threaded.replies} replies sent of ${replies}`);
      const extraMs = threaded.stageMs - flat.stageMs;
      perSecond.push(replies / (extraMs / 1000));
      cpuPerReply.push(((threaded.cpuMs - flat.cpuMs) * 1000) / replies);
      process.stdout.write(`run ${run}: messages stage ${(threaded.stageMs / 1000).toFixed(1)} s with replies, ${(flat.stageMs / 1000).toFixed(1)} s flattened → ${Math.round(perSecond.at(-1)!)} replies/s, chatport CPU ${cpuPerReply.at(-1)!.toFixed(0)} µs a reply\n`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const r = stats(perSecond);
  const c = stats(cpuPerReply);
  process.stdout.write(`\n| measure | min | median | max |\n|---|---:|---:|---:|\n| replies per second | ${Math.round(r.min)} | ${Math.round(r.median)} | ${Math.round(r.max)} |\n| chatport CPU per reply, µs | ${c.min.toFixed(0)} | ${c.median.toFixed(0)} | ${c.max.toFixed(0)} |\n`);
}
