import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, writeFile, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ChatportClient } from '../../src/api/index.js';
import { resolvePipelineConfig, type PipelineConfig } from '../../src/config/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/options.js';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';
import { runImport } from '../../src/pipeline/import/run-import.js';

export interface ImportFixture {
  sandbox: SandboxHandle;
  client: ChatportClient;
  dir: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A sandbox on a free port, a client with the rapid retry policy, and a temp folder for inputs and state. */
export async function startImportFixture(options: SandboxOptions = {}): Promise<ImportFixture> {
  const sandbox = await startSandbox({ port: 0, ...options });
  const client = createClient(
    { apiUrl: sandbox.url, auth: { kind: 'client-credentials', tokenUrl: sandbox.tokenUrl, ...sandbox.credentials }, retry: 'rapid' },
  );
  const dir = await mkdtemp(join(tmpdir(), 'chatport-import-'));
  const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: sandbox.credentials.clientSecret };
  return {
    sandbox, client, dir, env,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

/** Writes a pipeline file into `dir` and resolves it. */
export async function writePipeline(dir: string, yaml: string, env: Record<string, string> = {}): Promise<{ path: string; config: PipelineConfig }> {
  const path = join(dir, 'pipeline.yaml');
  await writeFile(path, yaml);
  const result = resolvePipelineConfig(yaml, { env, path });
  if (!result.ok) throw new Error(`pipeline invalid: ${JSON.stringify(result.errors)}`);
  return { path, config: result.config };
}

export async function writeInput(dir: string, name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  return path;
}

/** Runs the import of `config` until the messages stage has finished 2 jobs, then stops it as a signal would; resolves with what it threw. */
export async function interruptInMessages(f: ImportFixture, config: PipelineConfig, stateDir: string): Promise<unknown> {
  const stop = new AbortController();
  return runImport({ config, stateDir }, {
    client: f.client, signal: stop.signal,
    onProgress: (stage, c) => { if (stage === 'messages' && c.jobs.finished >= 2) stop.abort(new Error('stop')); },
  }).catch((e: unknown) => e);
}

/** Users, public channels and messages (with a `tag` property) of CSVs, in `mode`: insert or upsert. */
export const messagesPipeline = (name: string, mode: string): string => `name: ${name}
options: { chunkRecords: 50, concurrency: 1, mode: ${mode} }
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: username, isGuest: { const: false } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, displayName: name, members: { field: members, split: "|" } }
  messages:
    source: { path: messages.csv }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author, properties: { tag: tag } }
`;

/** Collects an async iterable. */
export async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Writes generated CSVs (generateCsvs) into `dir` as users.csv, channels.csv and messages.csv. */
export async function writeCsvs(dir: string, csv: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(csv)) await writeInput(dir, `${name}.csv`, text);
}

/**
 * Users, channels and messages CSVs: `users` users, `channels` public channels everyone is in, `messages`
 * spread round-robin. Names start with `prefix` (default none), so tests sharing a sandbox do not collide.
 */
export function generateCsvs(counts: { users: number; channels: number; messages: number }, prefix = '') {
  const users = ['id,username,display', ...Array.from({ length: counts.users }, (_, i) => `u${i},${prefix}user${i},User ${i}`)].join('\n');
  const channels = ['key,name,members', ...Array.from({ length: counts.channels }, (_, i) => `c${i},${prefix}chan-${i},${Array.from({ length: counts.users }, (_, u) => `${prefix}user${u}`).join('|')}`)].join('\n');
  const messages = ['id,channel,author,text', ...Array.from({ length: counts.messages }, (_, i) => `m${i},c${i % counts.channels},${prefix}user${i % counts.users},message number ${i}`)].join('\n');
  return { users: `${users}\n`, channels: `${channels}\n`, messages: `${messages}\n` };
}

/** A pipeline over generateCsvs' files (no api block: the client comes from the environment). */
export function generatedPipeline(name: string, options = 'chunkRecords: 50\n  concurrency: 3'): string {
  return generatedPipelineYaml({ name, options });
}

/**
 * A folder `f.dir/<name>` with generated CSVs (names prefixed by `name`) and a pipeline of small chunks
 * over them, and the state folder the run is to use.
 */
export async function setUpGeneratedRun(f: ImportFixture, name: string, counts: { users: number; channels: number; messages: number }) {
  const dir = join(f.dir, name);
  for (const [file, text] of Object.entries(generateCsvs(counts, `${name}-`))) await writeInput(dir, `${file}.csv`, text);
  const { config } = await writePipeline(dir, generatedPipeline(name, 'chunkRecords: 20\n  concurrency: 2'));
  return { dir, config, state: join(dir, 'state') };
}

const CLI_ENTRY = join(import.meta.dirname, '../../src/cli/main.ts');

/**
 * Runs the CLI (from the TypeScript sources) with the fixture's sandbox as the platform; resolves with the
 * exit code and output whatever the code. `env` is added to the process environment.
 */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI_ENTRY, ...args], { env: { ...process.env, CHATPORT_LOG_LEVEL: 'warn', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The environment variables the CHATPORT_* pipeline files read, pointing at the fixture's sandbox. */
export function chatportEnv(f: ImportFixture): Record<string, string> {
  return { CHATPORT_API_URL: f.sandbox.url, CHATPORT_CLIENT_ID: f.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: f.sandbox.credentials.clientSecret };
}

/** One line of a run folder's skipped/<stage>.ndjson. */
export interface SkippedLine {
  stage: string;
  file: string;
  line?: number;
  index: number;
  rule: number;
  because: string;
  record?: Record<string, unknown>;
}

/** A stage's listing, one object a line (none when the file does not exist). */
export async function skippedLines(runDir: string, stage: string): Promise<SkippedLine[]> {
  const text = await readFile(join(runDir, 'skipped', `${stage}.ndjson`), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as SkippedLine);
}
