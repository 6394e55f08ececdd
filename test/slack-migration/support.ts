import { compareInt64 } from '../../src/shared/int64.js';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChatportClient } from '../../src/api/index.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import type { Message } from '../../src/wire/resources.js';
import { all } from '../import/support.js';

/**
 * Reading a generated export's folder with plain fs + JSON.parse (not src/sources), and the platform
 * through the API, so the tests compare two independent views of the same workspace.
 */

export type Json = Record<string, unknown>;

export interface RawConversation {
  id: string;
  kind: 'channel' | 'group' | 'dm' | 'mpim';
  record: Json;
  /** Messages of its folder: day files in date order, each sorted by ts (Slack's order). */
  messages: Json[];
}

export interface RawExport {
  users: Json[];
  conversations: RawConversation[];
}

const LISTS = [['channels.json', 'channel'], ['groups.json', 'group'], ['dms.json', 'dm'], ['mpims.json', 'mpim']] as const;

export async function readRawExport(folder: string): Promise<RawExport> {
  const json = async (file: string) => JSON.parse(await readFile(join(folder, file), 'utf8')) as Json[];
  const conversations: RawConversation[] = [];
  for (const [file, kind] of LISTS)
    for (const record of await json(file)) {
      const dir = kind === 'dm' ? String(record.id) : String(record.name);
      const days = (await readdir(join(folder, dir))).sort();
      const messages: Json[] = [];
      for (const day of days) messages.push(...(await json(join(dir, day))).sort((a, b) => (String(a.ts) < String(b.ts) ? -1 : 1)));
      conversations.push({ id: String(record.id), kind, record, messages });
    }
  return { users: await json('users.json'), conversations };
}

/** `properties.source` of a platform record. */
export function sourceOf(record: { properties?: Record<string, unknown> | undefined }): Json {
  return (record.properties?.source ?? {}) as Json;
}

export interface PlatformMessage {
  type: string;
  user?: string;
  body: string;
  source: Json;
}

export interface PlatformChannel {
  /** Slack id, from properties.source.id. */
  slackId: string;
  type: string;
  /** PUBLIC and PRIVATE only: the platform names DIRECT channels itself (a new UUID per platform). */
  name?: string;
  displayName?: string;
  chatportKey: unknown;
  source: Json;
  /** Sorted usernames: the members list (DIRECT) or the memberships (others). */
  members: string[];
  /** The channel's own messages, in the order the platform applied them (by message id). */
  messages: PlatformMessage[];
  /** Reply threads: root source id → its replies, in thread order; `repliesCount` of each root. */
  threads: Map<string, { repliesCount: number; replies: PlatformMessage[] }>;
}

export interface PlatformState {
  users: Array<{ name: string; displayName?: string; isGuest?: boolean; source: Json }>;
  channels: PlatformChannel[];
}

function platformMessage(m: Message): PlatformMessage {
  return { type: m.type, ...(m.user ? { user: m.user.name } : {}), body: m.body ?? '', source: sourceOf(m) };
}

/** Everything the platform holds, without its own ids, sorted so two imports can be compared. */
export async function readPlatform(client: ChatportClient): Promise<PlatformState> {
  const users = (await all(client.users.list())).map((u) => ({ name: u.name, displayName: u.displayName, isGuest: u.isGuest, source: sourceOf(u) }));
  users.sort((a, b) => (a.name < b.name ? -1 : 1));
  const channels: PlatformChannel[] = [];
  for (const c of await all(client.channels.list())) {
    const members = c.type === 'DIRECT' ? (c.members ?? []).map((m) => m.name) : (await all(client.channels.members(c.id))).map((m) => m.name);
    const messages = await all(client.channels.messages(c.id));
    messages.sort((a, b) => compareInt64(a.id, b.id));
    const threads: PlatformChannel['threads'] = new Map();
    for (const m of messages) {
      if (!m.repliesCount) continue;
      const replies = await all(client.threads.messages(replyThreadIdOf(m)!));
      threads.set(String(sourceOf(m).id), { repliesCount: m.repliesCount, replies: replies.map(platformMessage) });
    }
    channels.push({
      slackId: String(sourceOf(c).id),
      type: c.type,
      ...(c.type === 'DIRECT' ? {} : { name: c.name, ...(c.displayName === undefined ? {} : { displayName: c.displayName }) }),
      chatportKey: c.properties?.chatportKey,
      source: sourceOf(c),
      members: members.sort(),
      messages: messages.map(platformMessage),
      threads,
    });
  }
  channels.sort((a, b) => (a.slackId < b.slackId ? -1 : 1));
  return { users, channels };
}

/** A hand-made export folder in a new temporary folder: each path (`users.json`, `general/2020-09-14.json`) holds its value as JSON. */
export async function writeExportFolder(prefix: string, files: Record<string, unknown>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  for (const [path, value] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), JSON.stringify(value));
  }
  return root;
}
