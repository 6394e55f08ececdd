import { describe, expect, it } from 'vitest';
import { StringKeyTable, keyHash } from '../../src/shared/string-key-table.js';
import { SentReplies } from '../../src/pipeline/state/sent-replies.js';
import { foldRunState } from '../../src/pipeline/state/run-state.js';

describe('StringKeyTable', () => {
  it('numbers keys in the order added, finds each exactly (unicode, prefixes, long keys), across its buffers', () => {
    const table = new StringKeyTable();
    const keys = ['a', 'aa', 'é', 'e\u0301', '🎉', 'k'.repeat(60_000), `${'k'.repeat(59_999)}j`, 'x\u0000y'];
    // Past the first 64 KiB buffer and into the 16 MiB ones.
    for (let i = 0; i < 40_000; i++) keys.push(`C0${i}/1700000000.${String(i).padStart(6, '0')}`);
    keys.forEach((k, i) => expect(table.add(k)).toBe(i));
    expect(table.size).toBe(keys.length);
    keys.forEach((k, i) => expect(table.find(k)).toBe(i));
    expect(table.add('aa')).toBe(1);
    expect(table.size).toBe(keys.length);
    expect(table.keyAt(5)).toBe(keys[5]);
    expect(table.keyAt(keys.length - 1)).toBe(keys[keys.length - 1]);
    for (const absent of ['b', 'k'.repeat(59_999), 'C040000/1700000000.040000', '']) expect(table.find(absent)).toBe(-1);
  });

  it('finds and adds keys given as UTF-8 bytes inside a larger buffer as it does the same keys given as text', () => {
    const table = new StringKeyTable();
    const keys = ['cp1-0123', 'cp1-01234', 'ключ', 'é', 'x'.repeat(2000), 'cp1-0124'];
    for (const k of keys.slice(0, 3)) table.add(k);
    const held = Buffer.concat(keys.map((k) => Buffer.from(`["${k}"]`)));
    let at = 0;
    const spans = keys.map((k) => {
      const start = at + 2;
      at += Buffer.byteLength(`["${k}"]`);
      return [start, start + Buffer.byteLength(k)] as const;
    });
    expect(spans.map(([s, e]) => table.findUtf8(held, s, e))).toEqual([0, 1, 2, -1, -1, -1]);
    expect(spans.map(([s, e]) => table.addUtf8(held, s, e))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(keys.map((k) => table.find(k))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(keys.map((_, i) => table.keyAt(i))).toEqual(keys);
  });

  it('adds a key at the place locateUtf8 found for it, or where add() would when that place went stale', () => {
    // Batches located first and added later, with other adds between (the same keys, keys on the same
    // probe paths, enough to grow the slots): each key must end with exactly one entry, found by find().
    const table = new StringKeyTable();
    const model = new Map<string, number>();
    let seed = 7;
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const keyOf = (n: number) => Buffer.from(`cp1-${n.toString(36)}`);
    for (let round = 0; round < 400; round++) {
      const batch = Array.from({ length: 1 + random(60) }, () => keyOf(random(20_000)));
      const places = batch.map((b) => ({ located: table.locateUtf8(b, 0, b.length, keyHash(b, 0, b.length)), layout: table.slotsLayout }));
      for (let i = random(80); i > 0; i--) {
        const b = i % 3 === 0 ? batch[random(batch.length)]! : keyOf(random(20_000));
        const entry = table.addUtf8(b, 0, b.length);
        expect(entry).toBe(model.get(b.toString()) ?? model.size);
        model.set(b.toString(), entry);
      }
      batch.forEach((b, i) => {
        const known = model.get(b.toString());
        if (places[i]!.located >= 0) expect(places[i]!.located).toBe(known);
        const entry = table.addLocatedUtf8(b, 0, b.length, keyHash(b, 0, b.length), places[i]!.located, places[i]!.layout);
        expect(entry).toBe(known ?? model.size);
        model.set(b.toString(), entry);
      });
    }
    expect(table.slotsLayout).toBeGreaterThan(3);
    expect(table.size).toBe(model.size);
    for (const [key, entry] of model) {
      expect(table.find(key)).toBe(entry);
      expect(table.keyAt(entry)).toBe(key);
    }
  });

  it('refuses a key longer than 65,535 bytes rather than keep it cut', () => {
    expect(() => new StringKeyTable('test table').add('é'.repeat(40_000))).toThrow(/80000 bytes is longer than the test table holds/);
  });
});

describe('SentReplies (the journal\'s sent replies)', () => {
  it('keeps each reply\'s id exactly (beyond 2^53 too) and counts orphans, a re-settled reply once', () => {
    const sent = new SentReplies();
    for (let i = 0; i < 5000; i++) sent.set(`r${i}`, { id: i * 7, orphan: i % 10 === 0 });
    sent.set('big', { id: 2n ** 62n + 1n, orphan: false });
    expect(sent.size).toBe(5001);
    expect(sent.orphans).toBe(500);
    expect(sent.get('r4990')).toEqual({ id: 34_930, orphan: true });
    expect(sent.get('big')).toEqual({ id: 2n ** 62n + 1n, orphan: false });
    sent.set('r4990', { id: 34_930, orphan: false });
    expect(sent.orphans).toBe(499);
    expect(sent.size).toBe(5001);
    expect(sent.get('r5000')).toBeUndefined();
  });

  it('is what the journal fold builds', () => {
    const state = foldRunState([
      { t: 'run-started', runId: 'r', attempt: 1 },
      { t: 'reply-sending', stage: 'messages', key: 'a' },
      { t: 'reply-sent', stage: 'messages', key: 'a', id: 11 },
      { t: 'reply-sending', stage: 'messages', key: 'b' },
      { t: 'reply-sent', stage: 'messages', key: 'b', id: 12, orphan: true },
      { t: 'reply-sending', stage: 'messages', key: 'c' },
    ] as Parameters<typeof foldRunState>[0]);
    const replies = state.stages.messages.replies;
    expect([replies.sent.get('a'), replies.sent.get('b'), replies.sent.get('c')]).toEqual([{ id: 11, orphan: false }, { id: 12, orphan: true }, undefined]);
    expect(replies.sent.orphans).toBe(1);
    expect([...replies.sending]).toEqual(['c']);
  });

  it('keeps a held reply patched by an upsert run as updated, so a resumed run counts it so', () => {
    const state = foldRunState([
      { t: 'run-started', runId: 'r', attempt: 1 },
      { t: 'reply-sent', stage: 'messages', key: 'a', id: 11, held: true, updated: true },
      { t: 'reply-sent', stage: 'messages', key: 'b', id: 12, held: true },
      { t: 'reply-sent', stage: 'messages', key: 'c', id: 13, orphan: true, held: true, updated: true },
      { t: 'reply-sent', stage: 'messages', key: 'd', id: 14 },
    ] as Parameters<typeof foldRunState>[0]);
    const { sent } = state.stages.messages.replies;
    expect(sent.get('a')).toEqual({ id: 11, orphan: false, held: true, updated: true });
    expect(sent.get('b')).toEqual({ id: 12, orphan: false, held: true });
    expect([sent.updated, sent.orphans, sent.held]).toEqual([2, 1, { replies: 2, orphans: 1 }]);
  });
});
