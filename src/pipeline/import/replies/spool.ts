import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { SendMessageBody } from '../../../api/index.js';
import type { RecordPosition } from '../../../formats/index.js';
import type { Int64 } from '../../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../../shared/lossless-json.js';

/**
 * Replies wait in a spool file (`<run>/replies.ndjson`, in source order) until their roots are imported.
 * The main pass writes it anew on every read of the input, so a resumed run has the same spool; the
 * replies pass streams it back, so memory holds only what is in flight, never every reply.
 */
export interface SpooledReply {
  /** The reply's own key (refs.ts): what the journal and the look-up before a re-send go by. */
  key: string;
  /** The ref of the message it replies to. */
  parent: string;
  channelId: Int64;
  body: SendMessageBody;
  /** The record's source key (a change line names it); absent in spools of older versions. */
  sourceKey?: string;
  /** The import item as mapped (for a reject line, and compared with a copy found already there). */
  item: Record<string, unknown>;
  position: RecordPosition;
  /** A Mattermost reply of a thread holding others of its slot (Accepted.slotSiblings). */
  slotSiblings?: readonly string[];
}

export class ReplySpool {
  private constructor(
    readonly path: string,
    private readonly out: WriteStream,
  ) {}

  static async open(path: string): Promise<ReplySpool> {
    await mkdir(dirname(path), { recursive: true });
    return new ReplySpool(path, createWriteStream(path));
  }

  async write(reply: SpooledReply): Promise<void> {
    if (!this.out.write(`${stringifyJson(reply)}\n`)) await new Promise<void>((resolve) => this.out.once('drain', () => resolve()));
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

export async function* readSpool(path: string): AsyncGenerator<SpooledReply> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield parseJsonExact(line, 'bigint') as SpooledReply;
}

/** The create-message body of an import item: the same message, sent on its own. */
export function sendBodyOf(item: Record<string, unknown>): SendMessageBody {
  const body: SendMessageBody = { type: String(item.type) };
  if (typeof item.body === 'string') body.body = item.body;
  if (typeof item.groupTag === 'string') body.groupTag = item.groupTag;
  if (item.properties !== undefined) body.properties = item.properties as Record<string, unknown>;
  if (typeof item.user === 'string') body.user = { username: item.user };
  return body;
}
