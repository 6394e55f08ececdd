import { describe, expect, it } from 'vitest';
import { ItemEncoder, KeyTable, PositionIndex, SourceDuplicates, idempotencyKeyFor, keyFingerprint, type Accepted, type RecordPosition } from '../../src/transform/index.js';
import { contentHash } from '../../src/transform/key-table.js';

describe('contentHash', () => {
  it('never gives a text and its change of one character (ASCII or not) one value, nor two such changes, and gives one text one value', () => {
    const base = JSON.stringify({ type: 'TEXT', body: 'Grüße, 世界 🙂', user: 'ann', properties: { source: { id: 'm1' } } });
    const seen = new Map<number, string>();
    for (let at = 0; at < base.length; at++)
      for (const c of ['a', 'b', 'é', '界', '"']) {
        if (base[at] === c) continue;
        const other = base.slice(0, at) + c + base.slice(at + 1);
        const h = contentHash(other);
        expect(h, `${other} against the base`).not.toBe(contentHash(base));
        const before = seen.get(h);
        if (before !== undefined) expect(before, `${other} and ${before} share ${h}`).toBe(other);
        seen.set(h, other);
      }
    expect(contentHash(base)).toBe(contentHash(JSON.parse(JSON.stringify(base)) as string));
    expect(contentHash('')).toBe(0);
  });
});

describe('KeyTable', () => {
  it('finds every key inserted, across many doublings, and keeps the last content and ordinal given', () => {
    const table = new KeyTable(16);
    const n = 50_000;
    let foundBeforeInsert = 0;
    for (let i = 1; i <= n; i++) {
      const [hi, lo] = keyFingerprint(idempotencyKeyFor('p', 'users', `k${i}`));
      if (table.find(hi, lo) !== -1) foundBeforeInsert++;
      table.insert(hi, lo, i * 7, i);
    }
    expect(foundBeforeInsert).toBe(0);
    expect(table.size).toBe(n);
    for (const i of [1, 2, 777, n]) {
      const [hi, lo] = keyFingerprint(idempotencyKeyFor('p', 'users', `k${i}`));
      const slot = table.find(hi, lo);
      expect([table.contentAt(slot), table.ordinalAt(slot)]).toEqual([i * 7, i]);
      table.update(slot, 1, n + i);
      expect(table.ordinalAt(table.find(hi, lo))).toBe(n + i);
    }
    // 16 bytes a slot, at most 70% full.
    expect(table.bytes).toBe(131_072 * 16);
  });

  it('fingerprints a key of another form by hashing its text', () => {
    expect(keyFingerprint('not-hex')).toEqual(keyFingerprint('not-hex'));
    expect(keyFingerprint('not-hex')).not.toEqual(keyFingerprint('not-hey'));
  });
});

describe('PositionIndex', () => {
  it('gives back every position from its ordinal, keeping change points only where lines or files jump', () => {
    const index = new PositionIndex();
    const positions: RecordPosition[] = [
      { file: 'a.csv', line: 2, index: 0 }, { file: 'a.csv', line: 3, index: 1 }, { file: 'a.csv', line: 6, index: 2 }, { file: 'a.csv', line: 7, index: 3 },
      { file: 'b.json', index: 0 }, { file: 'b.json', index: 1 }, { file: 'c.ndjson', line: 1, index: 0 },
    ];
    positions.forEach((p, i) => index.note(i + 1, p));
    expect(positions.map((_, i) => index.at(i + 1))).toEqual(positions);
  });
});

function accepted(key: string, item: Record<string, unknown>, position: RecordPosition): Accepted {
  return { kind: 'accepted', item: { ...item, idempotencyKey: idempotencyKeyFor('p', 'users', key) }, position, sourceKey: key };
}

/**
 * Runs records through the check as the stage runner does; returns each verdict's kind ('sent' when none).
 * `encoder`: each item is checked as its UTF-8 from it (the stage runner's form), else as its JSON text.
 */
function run(duplicates: SourceDuplicates, records: Array<[string, Record<string, unknown>]>, firstPass = false, encoder?: ItemEncoder): string[] {
  const list = records.map(([key, item], i) => accepted(key, item, { file: 'u.csv', line: i + 2, index: i }));
  if (firstPass) {
    list.forEach((a, i) => duplicates.noteInFirstPass(i + 1, a.position, a, JSON.stringify(a.item)));
    duplicates.endFirstPass();
  }
  return list.map((a, i) => {
    duplicates.note(i + 1, a.position);
    const json = JSON.stringify(a.item);
    const verdict = duplicates.check(i + 1, a, encoder ? encoder.encode(json) : json);
    if (verdict === undefined) return 'sent';
    return verdict.kind === 'conflict' ? `conflict: ${verdict.reason.message}` : `${verdict.kind}: ${verdict.line.message}`;
  });
}

describe('SourceDuplicates', () => {
  const records: Array<[string, Record<string, unknown>]> = [
    ['a', { name: 'ann' }],
    ['b', { name: 'bob' }],
    ['a', { name: 'ann' }],
    ['a', { name: 'anne' }],
    ['c', { name: 'cy' }],
  ];

  it('reject: the same content again is a duplicate of the first; other content is rejected naming the first position', () => {
    expect(run(new SourceDuplicates('reject', 'id'), records)).toEqual([
      'sent',
      'sent',
      'duplicate: key "a" was seen before at u.csv:2 with the same content: a duplicate of it, not sent again',
      'conflict: key "a" (id) was first seen at u.csv:2 with other content; the first record is the one imported. Fix the source, or set options.duplicates: last-wins to import the later one',
      'sent',
    ]);
  });

  it('last-wins: only the last record of a key is sent; earlier ones are duplicates of it or superseded by it', () => {
    expect(run(new SourceDuplicates('last-wins', 'id'), records, true)).toEqual([
      'superseded: key "a" appears again at u.csv:5 with other content; the later record wins (duplicates: last-wins), this one is skipped',
      'sent',
      'superseded: key "a" appears again at u.csv:5 with other content; the later record wins (duplicates: last-wins), this one is skipped',
      'sent',
      'sent',
    ]);
    expect(run(new SourceDuplicates('last-wins', 'id'), [['a', { name: 'x' }], ['a', { name: 'x' }]], true)[0]).toMatch(/^duplicate: key "a" appears again at u\.csv:3 with the same content/);
  });

  it('gives the same verdicts for an item\'s UTF-8 as for its text, non-ASCII content included', () => {
    const multibyte: Array<[string, Record<string, unknown>]> = [
      ['a', { name: 'Grüße 🎉' }],
      ['b', { name: 'مرحبا' }],
      ['a', { name: 'Grüße 🎉' }],
      ['b', { name: 'مرحبا!' }],
      ['a', { name: 'Grüße 🎊' }],
      ['c', { name: '世界' }],
      ['c', { name: '世界' }],
    ];
    const asBytes = run(new SourceDuplicates('reject', 'id'), multibyte, false, new ItemEncoder());
    expect(asBytes.map((v) => v.split(':')[0])).toEqual(['sent', 'sent', 'duplicate', 'conflict', 'conflict', 'sent', 'duplicate']);
    expect(asBytes).toEqual(run(new SourceDuplicates('reject', 'id'), multibyte));
  });
});
