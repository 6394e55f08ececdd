/**
 * A sandbox with data imported through its import endpoints (by the real client), the client the export
 * uses, and the sandbox's own view of that data (read back through the API) for comparison with the
 * export's output.
 */
import type { Int64 } from '../../src/shared/int64.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ChatportClient, type Message, type User } from '../../src/api/index.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';

export interface ExportBed {
  sandbox: SandboxHandle;
  client: ChatportClient;
  users: User[];
  messages: Message[];
  /** A fresh temp directory, removed by `close`. */
  tempDir(): string;
  close(): Promise<void>;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Bodies that CSV must quote (comma, quote, newline) and non-ASCII text. */
const BODIES = ['plain text', 'with, a comma', 'a "quoted" word', 'two\nlines', 'émoji 🎉 ünïcode', 'x'.repeat(300)];

/** The sandbox's clock in export tests: every record is created on this UTC day (the tests' DATE). */
export const BED_DAY = '2026-11-21';
export const BED_NOW = Date.parse(`${BED_DAY}T12:00:00Z`);

export async function startExportBed(options: SandboxOptions = {}, counts = { users: 25, messages: 60 }): Promise<ExportBed> {
  const sandbox = await startSandbox({ seed: 'demo', clock: () => BED_NOW, ...options });
  const client = createClient(
    { apiUrl: sandbox.url, auth: { kind: 'client-credentials', tokenUrl: sandbox.tokenUrl, ...sandbox.credentials }, retry: 'rapid' },
    { logger: createSilentLogger() },
  );
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatport-export-test-'));
    dirs.push(dir);
    return dir;
  };
  const work = tempDir();
  const wait = async (id: Int64) => {
    const job = await client.jobs.wait(id, { initialIntervalMs: 5 });
    if (job.state !== 'FINISHED') throw new Error(`import job ${id} ended ${job.state}`);
  };

  const users = Array.from({ length: counts.users }, (_, i) => ({
    name: `export-user-${i}`,
    displayName: `Export User ${i}, "the ${i}th"`,
    isGuest: i % 4 === 0,
    properties: {},
    idempotencyKey: `export-test-user-${i}`,
  }));
  writeFileSync(join(work, 'users.json'), JSON.stringify(users));
  await wait((await client.imports.upload('users', { path: join(work, 'users.json') })).id);

  const channels = await collect(client.channels.list());
  const general = channels.find((c) => c.name === 'general');
  if (!general) throw new Error('the demo seed has no "general" channel');
  const messages = Array.from({ length: counts.messages }, (_, i) => ({
    type: 'TEXT',
    channelId: general.id,
    user: i % 3 === 0 ? 'alice' : 'bob',
    body: BODIES[i % BODIES.length],
    ...(i % 5 === 0 ? { groupTag: `tag,${i}` } : {}),
    properties: {},
    idempotencyKey: `export-test-message-${i}`,
  }));
  writeFileSync(join(work, 'messages.json'), JSON.stringify(messages));
  await wait((await client.imports.upload('messages', { path: join(work, 'messages.json') })).id);

  return {
    sandbox,
    client,
    users: await collect(client.users.list()),
    messages: await collect(client.messages.list()),
    tempDir,
    async close() {
      await client.close();
      await sandbox.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Epoch microseconds of an ISO timestamp from the API (millisecond precision on the wire). */
export function isoToMicros(iso: string | undefined): bigint | null {
  return iso === undefined ? null : BigInt(Date.parse(iso)) * 1000n;
}

/** What the export must hold for each user, keyed by id, in the output's own column names and types. */
export function expectedUserRows(users: readonly User[]): Map<bigint, Record<string, unknown>> {
  return new Map(
    users.map((u) => [
      BigInt(u.id),
      { id: BigInt(u.id), name: u.name, display_name: u.displayName ?? null, type: u.type ?? null, is_guest: u.isGuest ?? false, created_time: isoToMicros(u.createdTime) },
    ]),
  );
}

export function expectedMessageRows(messages: readonly Message[]): Map<bigint, Record<string, unknown>> {
  return new Map(
    messages.map((m) => [
      BigInt(m.id),
      {
        id: BigInt(m.id),
        type: m.type,
        channel_id: BigInt(m.channelId!),
        user_id: m.user ? BigInt(m.user.id) : null,
        username: m.user?.name ?? null,
        body_length: m.body?.length ?? 0,
        group_tag: m.groupTag ?? null,
        created_time: isoToMicros(m.createdTime),
      },
    ]),
  );
}

/** Picks the keys of `expected` out of `row`, so rows compare on the columns the API can confirm. */
export function pick(row: Record<string, unknown>, expected: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(expected).map((k) => [k, row[k]]));
}

/** An export bed whose export file is served by "storage" on another origin, holding what the test sets. */
export interface StoredExportBed {
  bed: ExportBed;
  storage: OtherOrigin;
  /** What the export file holds from now on. */
  serve(body: string | Buffer, contentType?: string): void;
  close(): Promise<void>;
}

export async function startStoredExportBed(counts = { users: 1, messages: 1 }): Promise<StoredExportBed> {
  const bed = await startExportBed({}, counts);
  let body = { bytes: Buffer.alloc(0), type: 'text/csv' };
  const storage = await startOtherOrigin({ respond: () => ({ status: 200, headers: { 'content-type': body.type, 'content-length': String(body.bytes.length) }, body: body.bytes }) });
  bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: storage.url } }]);
  return {
    bed,
    storage,
    serve(bytes, type = 'text/csv') {
      body = { bytes: Buffer.from(bytes), type };
    },
    async close() {
      await storage.close();
      await bed.close();
    },
  };
}
