/**
 * The sandbox's messages, held compactly: ids are sequential, so each field is a column indexed by id
 * (typed arrays in pages of 64Ki), and what varies in size (body, group tag, properties, file, edit time) is
 * one JSON text in a ByteArena. A message costs about 30 bytes of columns plus its JSON, instead of a
 * retained object graph the garbage collector walks on every full collection (about 0.7 KB an item, and a
 * Map that cannot pass 2^24 entries). Reads build a MessageRec on demand; callers treat it as a value.
 */
import { parseJsonExact, stringifyJson } from '../shared/lossless-json.js';
import type { ByteArena } from './byte-arena.js';
import { ByteCopier } from '../shared/byte-copy.js';
import type { MessageFile, MessageRec } from './store.js';

const PAGE_BITS = 16;
const PAGE_SIZE = 1 << PAGE_BITS;
const NONE = 0;

/** One page of columns. 0 in user or parent means none (ids start at 1). */
class Page {
  readonly present = new Uint8Array(PAGE_SIZE);
  readonly type = new Uint8Array(PAGE_SIZE);
  readonly channel = new Int32Array(PAGE_SIZE);
  readonly user = new Int32Array(PAGE_SIZE);
  readonly parent = new Int32Array(PAGE_SIZE);
  readonly created = new Float64Array(PAGE_SIZE);
  /** Where the message's variable part is in the arena; -1 when it has none. */
  readonly payload = new Float64Array(PAGE_SIZE).fill(-1);
}

/** The variable part of a message, as stored (short names: this text is kept once per message). */
interface Payload {
  b?: string;
  g?: string;
  p?: Record<string, unknown>;
  f?: MessageFile;
  e?: number;
}

export class MessageTable {
  private readonly pages: Page[] = [];
  private readonly types: string[] = [];
  private readonly typeIndex = new Map<string, number>();
  private count = 0;
  private highest = 0;

  private readonly copier = new ByteCopier();

  constructor(private readonly arena: ByteArena) {}

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    const page = this.pages[id >>> PAGE_BITS];
    return page !== undefined && page.present[id & (PAGE_SIZE - 1)] === 1;
  }

  get(id: number): MessageRec | undefined {
    if (!Number.isInteger(id) || id < 1) return undefined;
    const page = this.pages[id >>> PAGE_BITS];
    const slot = id & (PAGE_SIZE - 1);
    if (page === undefined || page.present[slot] !== 1) return undefined;
    const message: MessageRec = { id, type: this.types[page.type[slot]!]!, channelId: page.channel[slot]!, createdTime: page.created[slot]! };
    if (page.user[slot] !== NONE) message.userId = page.user[slot]!;
    if (page.parent[slot] !== NONE) message.parentId = page.parent[slot]!;
    const place = page.payload[slot]!;
    if (place >= 0) readPayloadInto(message, this.arena.read(place));
    return message;
  }

  /** The parent of message `id` (undefined for a top-level or unknown message), without reading its text. */
  parentOf(id: number): number | undefined {
    if (!this.has(id)) return undefined;
    const parent = this.pages[id >>> PAGE_BITS]!.parent[id & (PAGE_SIZE - 1)]!;
    return parent === NONE ? undefined : parent;
  }

  /** Adds or replaces message `m.id` (a replaced message's old text stays in the arena, unreferenced). */
  set(m: MessageRec): void {
    this.setColumns(m, this.storePayload(m));
  }

  /**
   * Adds or replaces message `m.id`, whose variable part is JSON tokens in its upload (message-upload-scan.ts):
   * written straight into the arena as the Payload text (m's own body, group tag and properties are not read).
   */
  setFromUpload(m: MessageRec, upload: Buffer, tokens: PayloadTokens): void {
    const into = this.arena.reserve(uploadedPayloadMost(tokens));
    const end = writeUploadedPayload(this.copier, upload, tokens, into, this.arena.writeOffset);
    this.setColumns(m, this.arena.commit(end - this.arena.writeOffset));
  }

  private setColumns(m: MessageRec, place: number): void {
    if (!Number.isInteger(m.id) || m.id < 1 || m.id >= 2 ** 31) throw new RangeError(`message id ${m.id} is outside the store's range`);
    const page = this.pageFor(m.id);
    const slot = m.id & (PAGE_SIZE - 1);
    if (page.present[slot] !== 1) this.count++;
    page.present[slot] = 1;
    page.type[slot] = this.typeNumber(m.type);
    page.channel[slot] = m.channelId;
    page.user[slot] = m.userId ?? NONE;
    page.parent[slot] = m.parentId ?? NONE;
    page.created[slot] = m.createdTime;
    page.payload[slot] = place;
    if (m.id > this.highest) this.highest = m.id;
  }

  delete(id: number): boolean {
    if (!this.has(id)) return false;
    this.pages[id >>> PAGE_BITS]!.present[id & (PAGE_SIZE - 1)] = 0;
    this.count--;
    return true;
  }

  /** Every message, in id order. */
  *values(): Generator<MessageRec> {
    for (let id = 1; id <= this.highest; id++) {
      const message = this.get(id);
      if (message) yield message;
    }
  }

  private pageFor(id: number): Page {
    const index = id >>> PAGE_BITS;
    while (this.pages.length <= index) this.pages.push(undefined as unknown as Page);
    return (this.pages[index] ??= new Page());
  }

  private typeNumber(type: string): number {
    let n = this.typeIndex.get(type);
    if (n === undefined) {
      if (this.types.length === 256) throw new RangeError('more than 256 message types');
      n = this.types.push(type) - 1;
      this.typeIndex.set(type, n);
    }
    return n;
  }

  private storePayload(m: MessageRec): number {
    if (m.body === undefined && m.groupTag === undefined && m.properties === undefined && m.file === undefined && m.lastEditedTime === undefined) return -1;
    const payload: Payload = {};
    if (m.body !== undefined) payload.b = m.body;
    if (m.groupTag !== undefined) payload.g = m.groupTag;
    if (m.properties !== undefined) payload.p = m.properties;
    if (m.file !== undefined) payload.f = m.file;
    if (m.lastEditedTime !== undefined) payload.e = m.lastEditedTime;
    return this.arena.append(stringifyJson(payload));
  }
}

/** Sets the message fields a stored variable part holds (its JSON text). */
export function readPayloadInto(message: MessageRec, text: string): void {
  const p = parseJsonExact(text, 'bigint') as Payload;
  if (p.b !== undefined) message.body = p.b;
  if (p.g !== undefined) message.groupTag = p.g;
  if (p.p !== undefined) message.properties = p.p;
  if (p.f !== undefined) message.file = p.f;
  if (p.e !== undefined) message.lastEditedTime = p.e;
}

/** Where an uploaded message's JSON tokens are in its upload, quotes included (message-upload-scan.ts); -1: absent. */
export interface PayloadTokens {
  bodyStart: number;
  bodyEnd: number;
  groupStart: number;
  groupEnd: number;
  propertiesStart: number;
  propertiesEnd: number;
}

const OPEN_BODY = Buffer.from('{"b":');
const NEXT_GROUP = Buffer.from(',"g":');
const NEXT_PROPERTIES = Buffer.from(',"p":');
const CLOSE_BRACE = 0x7d;

/** Bytes the Payload text of an uploaded message takes at most. */
function uploadedPayloadMost(t: PayloadTokens): number {
  return OPEN_BODY.length * 3 + 1 + (t.bodyEnd - t.bodyStart) + Math.max(0, t.groupEnd - t.groupStart) + Math.max(0, t.propertiesEnd - t.propertiesStart);
}

/**
 * Writes the variable part of an uploaded message as the store keeps it (the Payload JSON above) into
 * `into` from `at`, composed from the upload's own tokens: what JSON.parse reads from it is what it would
 * read from the JSON set() writes. Returns where it ends.
 */
function writeUploadedPayload(copier: ByteCopier, upload: Buffer, t: PayloadTokens, into: Buffer, at: number): number {
  at = copier.copy(OPEN_BODY, 0, OPEN_BODY.length, into, at);
  at = copier.copy(upload, t.bodyStart, t.bodyEnd, into, at);
  if (t.groupStart >= 0) {
    at = copier.copy(NEXT_GROUP, 0, NEXT_GROUP.length, into, at);
    at = copier.copy(upload, t.groupStart, t.groupEnd, into, at);
  }
  if (t.propertiesStart >= 0) {
    at = copier.copy(NEXT_PROPERTIES, 0, NEXT_PROPERTIES.length, into, at);
    at = copier.copy(upload, t.propertiesStart, t.propertiesEnd, into, at);
  }
  into[at++] = CLOSE_BRACE;
  return at;
}

const TEXT_COPIER = new ByteCopier();

/** The Payload text of an uploaded message (for the journal, and tests). */
export function uploadedPayloadText(upload: Buffer, t: PayloadTokens): string {
  const into = Buffer.allocUnsafe(uploadedPayloadMost(t));
  return into.toString('utf8', 0, writeUploadedPayload(TEXT_COPIER, upload, t, into, 0));
}
