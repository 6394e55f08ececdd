import { parseInt64 } from '../../shared/int64.js';
import type { ChatportClient, Job } from '../../api/index.js';
import { parseRecordBatches } from '../../formats/index.js';
import type { Sleep } from '../../shared/async.js';
import { ChatportError } from '../../shared/errors.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import type { Logger } from '../../shared/logger.js';
import { openExportDownload } from '../export/download.js';
import type { PlatformChannel, PlatformUser } from './compare-records.js';
import { PlatformMessages, type Interner } from './message-columns.js';
import type { RepliesOnPlatform } from './unexpected-replies.js';

/**
 * What the platform holds, read in bulk: users and channels from their offset pages, members of group
 * channels from theirs, and every message's id, channel, author, type and body length from the messages
 * analytics export (one job and one download, however many messages).
 */
export interface PlatformReadDeps {
  client: ChatportClient;
  logger: Logger;
  sleep: Sleep;
  signal?: AbortSignal;
}

const withSignal = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

export async function readPlatformUsers(deps: PlatformReadDeps): Promise<PlatformUser[]> {
  const users: PlatformUser[] = [];
  for await (const u of deps.client.users.list({ pageSize: 100, ...withSignal(deps.signal) }))
    users.push({ id: String(u.id), name: u.name, ...(u.displayName !== undefined ? { displayName: u.displayName } : {}), ...(u.isGuest !== undefined ? { isGuest: u.isGuest } : {}), ...(u.properties ? { properties: u.properties } : {}) });
  return users;
}

export async function readPlatformChannels(deps: PlatformReadDeps): Promise<PlatformChannel[]> {
  const channels: PlatformChannel[] = [];
  for await (const c of deps.client.channels.list({ pageSize: 100, ...withSignal(deps.signal) }))
    channels.push({
      id: String(c.id), type: c.type, name: c.name,
      ...(c.displayName !== undefined ? { displayName: c.displayName } : {}),
      ...(c.properties ? { properties: c.properties } : {}),
      ...(c.members ? { members: c.members.map((m) => m.name) } : {}),
    });
  return channels;
}

/**
 * Usernames of each channel's members: DIRECT channels carry them, group channels are read page by page,
 * `concurrency` channels at a time (each page waits on the platform).
 */
export async function readMemberships(channels: ReadonlyMap<string, PlatformChannel>, deps: PlatformReadDeps, concurrency: number): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const reads = inOrderAhead(channels, concurrency, async ([key, channel]) => ({ key, names: channel.members ? new Set(channel.members) : await memberNames(channel, deps) }));
  for await (const { key, names } of reads) out.set(key, names);
  return out;
}

async function memberNames(channel: PlatformChannel, deps: PlatformReadDeps): Promise<Set<string>> {
  const names = new Set<string>();
  for await (const u of deps.client.channels.members(parseInt64(channel.id)!, { pageSize: 100, ...withSignal(deps.signal) })) names.add(u.name);
  return names;
}

type ExportWait = { pollIntervalMs: number; timeoutMs: number };

/**
 * Starts the messages export now (it runs on the platform while the source is read); `finished()` waits for
 * it. An export, unlike an import, changes nothing, so one that FAILED (the platform gives no reason) is
 * started once more before the verification gives up (VERIFY_EXPORT_FAILED, exit 75: try again later).
 */
export async function startMessagesExport(deps: PlatformReadDeps, wait: ExportWait): Promise<{ finished(): Promise<Job> }> {
  const started = await startExport(deps);
  return {
    async finished() {
      const first = await waitForExport(deps, started, wait);
      if (first.state === 'FINISHED') return first;
      deps.logger.warn({ jobId: first.id }, 'verification: the messages export FAILED; starting it once more');
      const second = await waitForExport(deps, await startExport(deps), wait);
      if (second.state === 'FINISHED') return second;
      throw exportFailedTwice(first, second);
    },
  };
}

async function startExport(deps: PlatformReadDeps): Promise<Job> {
  const started = await deps.client.exports.start('messages', withSignal(deps.signal));
  deps.logger.info({ jobId: started.id }, 'verification: messages export started');
  return started;
}

function waitForExport(deps: PlatformReadDeps, job: Job, wait: ExportWait): Promise<Job> {
  return deps.client.jobs.wait(job.id, { initialIntervalMs: wait.pollIntervalMs, maxIntervalMs: 5_000, timeoutMs: wait.timeoutMs, ...withSignal(deps.signal) });
}

function exportFailedTwice(first: Job, second: Job): ChatportError {
  return new ChatportError(
    `the messages export verification reads FAILED twice (jobs ${String(first.id)} and ${String(second.id)}; the platform gives no reason for a failed job): nothing was verified; run it again later`,
    { code: 'VERIFY_EXPORT_FAILED', transient: true, details: { jobIds: [first.id, second.id], type: second.type } },
  );
}

/**
 * Streams the export and keeps the rows of the given channels (platform id → source key) as compact
 * columns, each channel in id order (the order channel message lists use).
 */
export async function readExportedMessages(
  job: Job,
  channelKeyById: ReadonlyMap<string, string>,
  interners: { authors: Interner; types: Interner },
  deps: PlatformReadDeps,
  /** Ids of messages that are not channel messages (replies in threads). */
  skipIds: { has(id: string): boolean } = new Set<string>(),
  /** Where each message's `repliesCount` goes (a reply, too, is looked at: it should hold none). */
  repliesHeld?: RepliesOnPlatform,
): Promise<Map<string, PlatformMessages>> {
  const name = `messages export (job ${job.id})`;
  const download = openExportDownload(deps.client, job, { ...withSignal(deps.signal), sleep: deps.sleep, logger: deps.logger, name });
  const out = new Map<string, PlatformMessages>();
  for await (const batch of parseRecordBatches(download.stream, { file: name })) {
    for (const row of batch) {
      if ('unparseable' in row) throw new ChatportError(`${name} line ${row.position.line ?? row.position.index}: ${row.unparseable.message}`, { code: 'API_SERVER', transient: false });
      const r = row.record;
      const key = channelKeyById.get(text(r.channelId));
      if (key === undefined) continue;
      repliesHeld?.add(key, BigInt(text(r.id)), Number(text(r.repliesCount) || 0));
      if (skipIds.has(text(r.id))) continue;
      let column = out.get(key);
      if (!column) out.set(key, (column = new PlatformMessages()));
      column.push(
        { author: interners.authors.id(text(r.username)), type: interners.types.id(text(r.type)), length: Number(text(r.bodyLength) || 0) },
        BigInt(text(r.id)),
        text(r.lastEditedTime) !== '',
      );
    }
  }
  for (const column of out.values()) column.sortById();
  return out;
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}
