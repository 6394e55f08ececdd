import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanMessageUpload, type ScannedMessage } from '../../src/sandbox/message-upload-scan.js';
import { parseImportFile } from '../../src/sandbox/multipart.js';
import { surelyValidMessage } from '../../src/sandbox/fast-accept.js';
import { readPayloadInto, uploadedPayloadText } from '../../src/sandbox/message-table.js';
import { stringifyJson } from '../../src/shared/lossless-json.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { keyHash } from '../../src/shared/string-key-table.js';
import { uploadedKey, type MessageRec } from '../../src/sandbox/store.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

/** JSON texts of values, written by hand so they keep escapes and number spellings JSON.stringify would change. */
const BODIES = ['"hi"', '"émoji 🎉 مرحبا"', '"line\\nbreak \\"quoted\\" \\\\ \\/"', '"\\u00e9\\ud83d\\ude00"', '"lone \\ud800 surrogate"', '"x"', `"${'a'.repeat(40_000)}"`, `"${'é'.repeat(20_001)}"`, '""', '"\\u0000"'];
const NUMBERS = ['0', '1', '-1', '-0', '1.5', '-1.5', '1e2', '1E+2', '1e-2', '1e400', '-1e-400', '1e-400', '0.0e-999', '0.1', '12345678901234567890', '-12345678901234567890', '1234567890123456789.0', '1e15', '9.99e14', '999999999999999.9', '9007199254740993', '2.5e-7'];
const PROPERTIES = [
  '{}', '{"source":{"id":"m1","sentAt":"2024-01-01T00:00:00.000Z"}}', '{"a":[1,2,{"b":null}],"c":true,"d":false}', ' { "spaced" : [ 1 , 2 ] } ',
  '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"k\\u00e9y":"v\\n"}', '{"deep":[[[[[[[[[[[[1]]]]]]]]]]]]}',
  ...NUMBERS.map((n) => `{"n":${n},"list":[${n}]}`),
];

interface Fields {
  [name: string]: string | undefined;
}

function itemText(fields: Fields, order: string[]): string {
  return `{${order.filter((k) => fields[k] !== undefined).map((k) => `"${k}":${fields[k]}`).join(',')}}`;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** A message item close to the common shape, often with one field made unusual. */
function randomItem(r: () => number): string {
  const text = r() < 0.85;
  const fields: Fields = {
    type: text ? '"TEXT"' : '"SYSTEM_TEXT"',
    channelId: String(1 + Math.floor(r() * 3)),
    body: pick(r, BODIES),
    user: text ? pick(r, ['"ann"', '"b\\u00e9n"', '"cal"']) : undefined,
    groupTag: r() < 0.3 ? pick(r, ['"g"', '""', '"t\\u00e4g"']) : undefined,
    properties: r() < 0.8 ? pick(r, PROPERTIES) : undefined,
    idempotencyKey: r() < 0.9 ? pick(r, ['"cp1-0123456789abcdef"', '"cp1-1"', '"cp1-2"', '"k\\u00e9y"', '"ключ"', '""', `"${'k'.repeat(256)}"`, `"${'k'.repeat(257)}"`]) : undefined,
  };
  if (r() < 0.3) {
    const field = pick(r, Object.keys(fields));
    fields[field] = pick(r, ['null', '0', '-3', '1.0', '1e0', '01', '9007199254740991', '9007199254740992', '"TEXT"', '"text"', '"\\u0054EXT"', '[]', '{}', '"x"', `"${'u'.repeat(129)}"`, 'true', undefined]);
  }
  const order = ['type', 'channelId', 'body', 'user', 'groupTag', 'properties', 'idempotencyKey'];
  if (r() < 0.2) order.reverse();
  let out = itemText(fields, order);
  if (r() < 0.03) out = out.replace('"body"', '"bod\\u0079"');
  if (r() < 0.03) out = out.replace('{', '{"extra":1,');
  if (r() < 0.03) out = out.replace('{', '{"type":"TEXT",');
  return out;
}

function randomUpload(r: () => number): Buffer {
  const items = Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomItem(r));
  const gap = pick(r, ['', ' ', '\n', '\r\n\t ']);
  return Buffer.from(`${gap}[${gap}${items.join(`${gap},${gap}`)}${gap}]${gap}`);
}

const INTERESTING_BYTES = [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x20, 0x30, 0x2d, 0x65, 0x2e, 0x00, 0x1f, 0x80, 0xc3, 0xe2, 0xff, 0x78, 0x0a, 0x75];

/** One byte replaced, deleted or repeated. */
function mutate(r: () => number, bytes: Buffer): Buffer {
  const at = Math.floor(r() * bytes.length);
  const roll = r();
  if (roll < 0.6) {
    const copy = Buffer.from(bytes);
    copy[at] = pick(r, INTERESTING_BYTES);
    return copy;
  }
  if (roll < 0.8) return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  return Buffer.concat([bytes.subarray(0, at + 1), bytes.subarray(at)]);
}

/** What the store keeps of an item's variable part, read back: by the general path (JSON re-written) and by the scan (tokens as they are). */
function generalPayload(item: Record<string, unknown>): MessageRec {
  const rec = { id: 1, type: 'TEXT', channelId: 1, createdTime: 0 } as MessageRec;
  const payload: Record<string, unknown> = { b: item.body };
  if (item.groupTag !== undefined) payload.g = item.groupTag;
  if (item.properties !== undefined) payload.p = item.properties;
  readPayloadInto(rec, stringifyJson(payload));
  return rec;
}

function scannedPayload(bytes: Buffer, m: ScannedMessage): MessageRec {
  const rec = { id: 1, type: 'TEXT', channelId: 1, createdTime: 0 } as MessageRec;
  readPayloadInto(rec, uploadedPayloadText(bytes, m));
  return rec;
}

/** Holds a scan's yes to the general path's reading of the same bytes: every item accepted and read alike. */
function expectSameAsGeneral(bytes: Buffer): boolean {
  const scanned = scanMessageUpload(bytes);
  if (!scanned) return false;
  const label = bytes.toString('latin1').slice(0, 300);
  let general: unknown[];
  try {
    const parsed = parseImportFile(bytes);
    if (parsed.unheld) throw new Error(parsed.unheld.reason);
    general = parsed.items;
  } catch (error) {
    throw new Error(`the scan said yes to a file the general path refuses (${(error as Error).message}): ${label}`, { cause: error });
  }
  expect(scanned.messages.length, label).toBe(general.length);
  general.forEach((raw, i) => {
    const item = raw as Record<string, unknown>;
    const m = scanned.messages[i]!;
    expect(surelyValidMessage(item), label).toBe(true);
    expect({ type: m.type, channelId: m.channelId, user: m.user, idempotencyKey: uploadedKey(bytes, m) }, label).toEqual({
      type: item.type, channelId: item.channelId, user: item.user, idempotencyKey: item.idempotencyKey,
    });
    expect(scannedPayload(bytes, m), label).toEqual(generalPayload(item));
    // The key table takes the key's bytes as its UTF-8.
    if (m.keyStart >= 0) expect(bytes.subarray(m.keyStart, m.keyEnd).equals(Buffer.from(item.idempotencyKey as string)), label).toBe(true);
  });
  return true;
}

describe('the sandbox scan of messages import files', () => {
  it('says yes only to files the general path reads to the same items and stored values (12,000 generated and byte-mutated files)', () => {
    const r = seededRandom(20261126);
    let yes = 0;
    let mutatedYes = 0;
    for (let i = 0; i < 4_000; i++) {
      const upload = randomUpload(r);
      if (expectSameAsGeneral(upload)) yes++;
      for (let k = 0; k < 2; k++) if (expectSameAsGeneral(mutate(r, upload))) mutatedYes++;
    }
    // It must also take most common files, or it buys nothing; and mutations must reach both answers.
    expect(yes).toBeGreaterThan(400);
    expect(mutatedYes).toBeGreaterThan(100);
  });

  it('takes the common file: the shape chatport uploads, spaced or not, keys readable from the bytes', () => {
    const item = { type: 'TEXT', channelId: 7, body: 'héllo "x"', user: 'ann', properties: { source: { id: 'm1', sentAt: '2024-01-01T00:00:00.000Z' } }, idempotencyKey: 'cp1-00ff' };
    for (const text of [JSON.stringify([item, { type: 'SYSTEM_TEXT', channelId: 7, body: 'joined' }]), JSON.stringify([item], null, 2), '[]']) {
      const scanned = scanMessageUpload(Buffer.from(text));
      expect(scanned, text).toBeDefined();
      expect(expectSameAsGeneral(Buffer.from(text))).toBe(true);
    }
    const [m] = scanMessageUpload(Buffer.from(JSON.stringify([item])))!.messages;
    expect(m!.keyStart).toBeGreaterThan(0);
  });

  it('leaves to the general path what it must decide: bad JSON, repeated or escaped fields, keys not plain ASCII, numbers JSON would rewrite, ids beyond 2^53', () => {
    const base = '{"type":"TEXT","channelId":1,"body":"b","user":"ann"';
    for (const text of [
      `[${base}}`, `[${base}},]`, `\uFEFF[${base}}]`, `{${base}}`, `[${base},"body":"again"}]`, `[${base},"extr\\u0061":1}]`,
      `[${base},"properties":{"n":-0}}]`, `[${base},"properties":{"n":1e15}}]`, `[${base},"properties":{"n":1e400}}]`,
      `[{"type":"TEXT","channelId":9007199254740993,"body":"b","user":"ann"}]`, `[{"type":"TEXT","channelId":1.0,"body":"b","user":"ann"}]`,
      `[{"type":"TEXT","channelId":1,"body":"","user":"ann"}]`, `[{"type":"TEXT","channelId":1,"body":"b"}]`, `[${base},"properties":[]}]`,
      `[${base},"properties":{"a":${'['.repeat(70)}${']'.repeat(70)}}}]`, `[${base},"body2":"x"}]`, '[1]', '',
      `[${base},"idempotencyKey":"ключ"}]`, `[${base},"idempotencyKey":"k\\u0065y"}]`, `[${base},"idempotencyKey":""}]`,
    ]) expect(scanMessageUpload(Buffer.from(text)), text).toBeUndefined();
    // A field name whose first byte is 0xF4 ("ype" after it): not "type", whatever 7 bits it shares with 't'.
    const highFirst = Buffer.concat([Buffer.from('[{"'), Buffer.from([0xf4]), Buffer.from('ype":"TEXT","channelId":1,"body":"b","user":"ann"}]')]);
    expect(scanMessageUpload(highFirst)).toBeUndefined();
  });
});

describe('a scanned messages file imports as the same file read in full', () => {
  const BIG = '12345678901234567891';
  const items = [
    `{"type":"TEXT","channelId":1,"body":"plain","user":"alice","properties":{"source":{"id":"m1"}},"idempotencyKey":"cp1-a"}`,
    `{"type":"TEXT","channelId":1,"body":"esc \\"q\\" \\u00e9 \\ud83d\\ude00 \\n","user":"bob","groupTag":"t\\u00e4g","properties":{"n":${BIG},"m":[-${BIG},1.5,true,null]},"idempotencyKey":"cp1-b"}`,
    `{"type":"SYSTEM_TEXT","channelId":2,"body":"émoji 🎉 مرحبا","idempotencyKey":"cp1-c"}`,
    `{"type":"TEXT","channelId":1,"body":"same key again: skipped","user":"carol","idempotencyKey":"cp1-a"}`,
    `{"channelId":2,"user":"carol","type":"TEXT","body":"no key, fields in another order","properties":{}}`,
  ];
  const scannable = `[${items.join(',\n')}]`;
  // The same items, one field name escaped: JSON reads the same, the scan leaves the file to the general path.
  const general = scannable.replace('"body":"plain"', '"bod\\u0079":"plain"');

  const dirs: string[] = [];
  const open: TestSandbox[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function start(dataDir?: string): Promise<TestSandbox> {
    const s = await startTestSandbox({ seed: 'demo', ...(dataDir ? { dataDir } : {}) });
    open.push(s);
    return s;
  }
  /** Both channels' messages as the wire shows them, import times and the sandbox's address masked. */
  async function messagesOf(s: TestSandbox): Promise<string> {
    const pages = await Promise.all([1, 2].map(async (c) => (await s.call(`/channels/${c}/messages?size=100`)).text));
    return pages.join('\n').replace(/"createdTime":"[^"]+"/g, '"createdTime":"…"').replaceAll(s.url, 'http://sandbox');
  }

  it('in memory and with --data: the same messages, values and key skips; a restart keeps them', async () => {
    expect(scanMessageUpload(Buffer.from(scannable))).toBeDefined();
    expect(scanMessageUpload(Buffer.from(general))).toBeUndefined();
    for (const persisted of [false, true]) {
      const seen: string[] = [];
      for (const file of [scannable, general]) {
        const dir = persisted ? mkdtempSync(join(tmpdir(), 'scan-data-')) : undefined;
        if (dir) dirs.push(dir);
        let s = await start(dir);
        const before = await messagesOf(s);
        expect((await s.waitJob((await s.upload('/imports/messages', file)).json.id)).state).toBe('FINISHED');
        const after = await messagesOf(s);
        expect(after).not.toBe(before);
        expect(after).toContain(`"properties":{"n":${BIG},"m":[-${BIG},1.5,true,null]}`);
        expect(after).toContain('"body":"esc \\"q\\" é 😀 \\n"');
        // A repeat of the file: every keyed item skipped, only the one without a key added again.
        expect((await s.waitJob((await s.upload('/imports/messages', file)).json.id)).state).toBe('FINISHED');
        const repeated = await messagesOf(s);
        expect(repeated.split('no key, fields in another order').length - 1).toBe(2);
        for (const body of ['"plain"', '"émoji 🎉 مرحبا"', '"same key again: skipped"']) expect(repeated.split(body).length - 1, body).toBe(body.includes('skipped') ? 0 : 1);
        if (dir) {
          await s.close();
          s = await start(dir);
          expect(await messagesOf(s)).toBe(repeated);
        }
        seen.push(repeated);
      }
      expect(seen[0], persisted ? 'with --data' : 'in memory').toBe(seen[1]);
    }
  });

  it('different keys with one hash in a file are told apart: each imported once, a repeat of either skipped', async () => {
    // Two short ASCII keys whose table hash collides, found by brute force (about 2^16 tries).
    const byHash = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const key = `k${i}`;
      const bytes = Buffer.from(key);
      const hash = keyHash(bytes, 0, bytes.length);
      const other = byHash.get(hash);
      if (other !== undefined) pair = [other, key];
      else byHash.set(hash, key);
    }
    const keys = [pair[0], pair[1], pair[1], pair[0]];
    const file = `[${keys.map((key, i) => `{"type":"TEXT","channelId":1,"body":"collide ${i}","user":"alice","idempotencyKey":"${key}"}`).join(',')}]`;
    expect(scanMessageUpload(Buffer.from(file))).toBeDefined();
    const s = await start();
    expect((await s.waitJob((await s.upload('/imports/messages', file)).json.id)).state).toBe('FINISHED');
    const after = await messagesOf(s);
    expect([0, 1, 2, 3].map((i) => after.includes(`"collide ${i}"`))).toEqual([true, true, false, false]);
  });

  it('a problem in a scanned file fails the job as the general path does, and applies nothing', async () => {
    const s = await start();
    const before = await messagesOf(s);
    const broken = scannable.replace('"user":"carol","idempotencyKey":"cp1-a"', '"user":"nobody","idempotencyKey":"cp1-z"');
    expect(scanMessageUpload(Buffer.from(broken))).toBeDefined();
    expect((await s.waitJob((await s.upload('/imports/messages', broken)).json.id)).state).toBe('FAILED');
    expect(await messagesOf(s)).toBe(before);
    const wrongChannel = `[{"type":"TEXT","channelId":99,"body":"x","user":"alice"}]`;
    expect((await s.waitJob((await s.upload('/imports/messages', wrongChannel)).json.id)).state).toBe('FAILED');
    expect((await s.waitJob((await s.upload('/imports/messages', scannable)).json.id)).state).toBe('FINISHED');
    expect(await messagesOf(s)).not.toBe(before);
  });
});
