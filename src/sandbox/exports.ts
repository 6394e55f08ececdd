import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { JobWork } from './jobs.js';
import { iso } from './render.js';
import type { Store } from './store.js';
import type { WireIds } from './wire-ids.js';

/**
 * Analytics exports (decisions.md "Analytics exports"): a job writes a CSV with a header row to the
 * exports directory; once FINISHED the job's `file` is an absolute URL under `/_exports/<token>/`, served
 * without the bearer token, like a pre-signed storage URL. Tokens are unguessable and expire after
 * `ttlSeconds`; a job read again later gets a fresh one.
 */
export type ExportKind = 'messages' | 'users';

export const EXPORT_COLUMNS: Record<ExportKind, readonly string[]> = {
  messages: ['id', 'type', 'channelId', 'channelName', 'userId', 'username', 'bodyLength', 'repliesCount', 'reactionsCount', 'groupTag', 'createdTime', 'lastEditedTime'],
  users: ['id', 'name', 'displayName', 'type', 'isGuest', 'createdTime', 'channelsCount', 'messagesCount', 'lastMessageTime'],
};

interface Grant {
  file: string;
  expiresAt: number;
}

export class Exports {
  private readonly grants = new Map<string, Grant>();
  /** The newest token per file, reused while it has at least half its life left. */
  private readonly latest = new Map<string, string>();
  private readonly gzipping = new Map<string, Promise<string>>();

  constructor(
    readonly dir: string,
    private readonly ttlSeconds: number,
    private readonly base: () => string,
    private readonly ids: WireIds,
    private readonly clock: () => number = Date.now,
  ) {}

  work(kind: ExportKind, store: Store): JobWork {
    return (control) =>
      control.exclusive(async () => {
        const file = `${kind}-${control.jobId}.csv`;
        const temp = join(this.dir, `${file}.part`);
        const out = createWriteStream(temp);
        const rows = kind === 'messages' ? messageRows(store, this.ids) : userRows(store, this.ids);
        let buffer = csvLine(EXPORT_COLUMNS[kind]);
        for (const row of rows) {
          buffer += csvLine(row);
          // Write in ~64 KiB pieces and honour backpressure: a million rows never sit in memory at once.
          if (buffer.length > 65_536) {
            if (control.signal.aborted) {
              out.destroy();
              return false;
            }
            if (!out.write(buffer)) await once(out, 'drain');
            buffer = '';
          }
        }
        out.end(buffer);
        await once(out, 'finish');
        renameSync(temp, join(this.dir, file));
        control.annotate({ exportFile: file });
        return true;
      });
  }

  /** A download URL for a finished export's file (minted or reused). */
  urlFor(file: string): string {
    const now = this.clock();
    const current = this.latest.get(file);
    const grant = current === undefined ? undefined : this.grants.get(current);
    let token = current;
    if (!grant || grant.expiresAt - now < (this.ttlSeconds * 1000) / 2) {
      token = randomBytes(24).toString('base64url');
      this.grants.set(token, { file, expiresAt: now + this.ttlSeconds * 1000 });
      this.latest.set(file, token);
    }
    return `${this.base()}/_exports/${token}/${file}`;
  }

  /** The file behind a token: its path, `expired`, or undefined when unknown. */
  resolve(token: string, name: string): string | 'expired' | undefined {
    const grant = this.grants.get(token);
    if (!grant || grant.file !== name) return undefined;
    if (grant.expiresAt <= this.clock()) return 'expired';
    const path = join(this.dir, grant.file);
    return existsSync(path) ? path : undefined;
  }

  /** The gzip representation of a file, made once on first request. */
  gzipped(path: string): Promise<string> {
    let made = this.gzipping.get(path);
    if (!made) {
      const target = `${path}.gz`;
      made = existsSync(target)
        ? Promise.resolve(target)
        : pipeline(createReadStream(path), createGzip({ level: 1 }), createWriteStream(`${target}.part`)).then(() => {
            renameSync(`${target}.part`, target);
            return target;
          });
      this.gzipping.set(path, made);
      made.catch(() => this.gzipping.delete(path));
    }
    return made;
  }
}

function csvField(value: string | number | bigint | boolean | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(values: ReadonlyArray<string | number | bigint | boolean | undefined>): string {
  return values.map(csvField).join(',') + '\n';
}

/** Ids in export rows are wire ids, as in every response (wire-ids.ts). */
function* messageRows(store: Store, ids: WireIds): Generator<Array<string | number | bigint | undefined>> {
  for (const id of store.messageIds) {
    const m = store.messages.get(id);
    if (!m) continue;
    const user = m.userId === undefined ? undefined : store.users.get(m.userId);
    yield [
      ids.toWire(m.id), m.type, ids.toWire(m.channelId), store.channels.get(m.channelId)?.name, m.userId === undefined ? undefined : ids.toWire(m.userId), user?.name, m.body?.length ?? 0, store.repliesByParent.get(m.id)?.length ?? 0, 0,
      m.groupTag, iso(m.createdTime), m.lastEditedTime === undefined ? undefined : iso(m.lastEditedTime),
    ];
  }
}

function* userRows(store: Store, ids: WireIds): Generator<Array<string | number | bigint | boolean | undefined>> {
  const channels = new Map<number, number>();
  for (const [channelId, members] of store.members) {
    const creator = store.channels.get(channelId)?.creatorId;
    for (const u of members.keys()) channels.set(u, (channels.get(u) ?? 0) + 1);
    if (creator !== undefined && !members.has(creator)) channels.set(creator, (channels.get(creator) ?? 0) + 1);
  }
  const messages = new Map<number, { count: number; last: number }>();
  for (const m of store.messages.values()) {
    if (m.userId === undefined) continue;
    // Starting from the message's own time, not 0: a user whose messages are all before 1970 has a last one.
    const s = messages.get(m.userId) ?? { count: 0, last: m.createdTime };
    s.count++;
    s.last = Math.max(s.last, m.createdTime);
    messages.set(m.userId, s);
  }
  for (const u of store.users.values()) {
    const s = messages.get(u.id);
    yield [ids.toWire(u.id), u.name, u.displayName, u.type, u.isGuest, iso(u.createdTime), channels.get(u.id) ?? 0, s?.count ?? 0, s ? iso(s.last) : undefined];
  }
}
