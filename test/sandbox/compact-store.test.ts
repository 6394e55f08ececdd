import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileArena, MemoryArena, type ByteArena } from '../../src/sandbox/byte-arena.js';
import { IdempotencyKeys } from '../../src/sandbox/idempotency-keys.js';
import { MessageTable } from '../../src/sandbox/message-table.js';
import type { MessageRec } from '../../src/sandbox/store.js';

const dir = mkdtempSync(join(tmpdir(), 'chatport-compact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ARENAS: Array<[string, () => ByteArena]> = [
  ['in memory', () => new MemoryArena()],
  ['in a file (--data)', () => new FileArena(join(dir, `texts-${Math.random().toString(36).slice(2)}.bin`))],
];

describe.each(ARENAS)('byte arena %s', (_name, make) => {
  it('gives back every text exactly, across chunk boundaries and for texts larger than a chunk', () => {
    const arena = make();
    const texts = ['', 'plain', 'émoji 🎉 and مرحبا', 'x'.repeat(70_000), '\u{1F600}'.repeat(5000)];
    const places: Array<[number, string]> = [];
    for (let i = 0; i < 3000; i++) {
      const text = `${texts[i % texts.length]}#${i}`;
      places.push([arena.append(text), text]);
    }
    const huge = 'h'.repeat(17 * 2 ** 20);
    places.push([arena.append(huge), huge]);
    places.push([arena.append('after the huge one'), 'after the huge one']);
    for (const [place, text] of places) expect(arena.read(place)).toBe(text);
    arena.close();
  });
});

describe.each(ARENAS)('message table %s', (_name, make) => {
  const full: MessageRec = {
    id: 7, type: 'TEXT', channelId: 3, userId: 9, body: 'hello 🎉', groupTag: 'g', parentId: 2,
    properties: { source: { id: 'm7', big: 12345678901234567890n, list: [1, 'two', null] } },
    file: { type: 'HOSTED', url: 'http://x/f', name: 'f.txt', contentType: 'text/plain', size: 3 },
    createdTime: 1_700_000_000_123, lastEditedTime: 1_700_000_000_456,
  };

  it('returns each message as it was set, optional fields left out where they were', () => {
    const table = new MessageTable(make());
    const bare: MessageRec = { id: 1, type: 'SYSTEM_TEXT', channelId: 3, createdTime: 5 };
    table.set(bare);
    table.set(full);
    expect(table.get(1)).toStrictEqual(bare);
    expect(table.get(7)).toStrictEqual(full);
    expect(table.parentOf(7)).toBe(2);
    expect(table.parentOf(1)).toBeUndefined();
    expect(table.parentOf(99)).toBeUndefined();
    expect(table.get(2)).toBeUndefined();
    expect(table.get(0)).toBeUndefined();
    expect(table.get(1.5)).toBeUndefined();
    expect(table.size).toBe(2);
  });

  it('replaces, deletes, and lists in id order across pages', () => {
    const table = new MessageTable(make());
    const ids = [70_000, 3, 65_536, 65_535, 1, 200_000];
    for (const id of ids) table.set({ id, type: 'TEXT', channelId: id % 7 + 1, userId: 4, body: `m${id}`, createdTime: id });
    table.set({ ...full, id: 3 });
    expect(table.delete(65_535)).toBe(true);
    expect(table.delete(65_535)).toBe(false);
    expect(table.has(65_535)).toBe(false);
    expect([...table.values()].map((m) => m.id)).toEqual([1, 3, 65_536, 70_000, 200_000]);
    expect(table.get(3)).toStrictEqual({ ...full, id: 3 });
    expect(table.get(200_000)?.body).toBe('m200000');
    expect(table.size).toBe(5);
  });

  it('refuses an id it cannot hold rather than store it somewhere else', () => {
    const table = new MessageTable(make());
    expect(() => table.set({ id: 2 ** 31, type: 'TEXT', channelId: 1, createdTime: 0 })).toThrow(RangeError);
    expect(() => table.set({ id: 0, type: 'TEXT', channelId: 1, createdTime: 0 })).toThrow(RangeError);
  });
});

describe('idempotency keys', () => {
  it('finds every key it was given, and no other, through growth', () => {
    const table = new IdempotencyKeys();
    const kinds = ['user', 'channel', 'member', 'message'] as const;
    const n = 150_000;
    for (let i = 0; i < n; i++) table.set(`cp1-${i.toString(16).padStart(32, '0')}`, { kind: kinds[i % 4]!, id: i + 1 });
    expect(table.size).toBe(n);
    for (let i = 0; i < n; i += 997) expect(table.get(`cp1-${i.toString(16).padStart(32, '0')}`)).toEqual({ kind: kinds[i % 4], id: i + 1 });
    expect(table.get(`cp1-${n.toString(16).padStart(32, '0')}`)).toBeUndefined();
    expect(table.get('cp1-')).toBeUndefined();
  });

  it('tells keys apart by every byte: unicode, long keys, prefixes, and replaces a target in place', () => {
    const table = new IdempotencyKeys();
    const keys = ['a', 'aa', 'é', 'e\u0301', '🎉', 'k'.repeat(5000), `${'k'.repeat(4999)}j`, 'x y', 'x\u0000y'];
    keys.forEach((k, i) => table.set(k, { kind: 'message', id: i + 1 }));
    keys.forEach((k, i) => expect(table.get(k)).toEqual({ kind: 'message', id: i + 1 }));
    table.set('aa', { kind: 'user', id: 99 });
    expect(table.get('aa')).toEqual({ kind: 'user', id: 99 });
    expect(table.size).toBe(keys.length);
    expect([...table.entries()].map(([k]) => k)).toEqual(keys);
    expect(table.get('b')).toBeUndefined();
  });

  it('keeps ids up to 2^30 − 1 exact, and refuses a larger one rather than keep it wrong', () => {
    const table = new IdempotencyKeys();
    table.set('big', { kind: 'channel', id: 2 ** 30 - 1 });
    expect(table.get('big')).toEqual({ kind: 'channel', id: 2 ** 30 - 1 });
    expect(() => table.set('bigger', { kind: 'message', id: 2 ** 30 })).toThrow(RangeError);
    expect(table.get('bigger')).toBeUndefined();
  });
});
