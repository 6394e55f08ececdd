import { describe, expect, it } from 'vitest';
import { StringKeyTable } from '../../src/shared/string-key-table.js';
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
});
