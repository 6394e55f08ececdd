import { describe, expect, it } from 'vitest';
import { FAST_VALIDATORS, zodValidator } from '../../src/transform/index.js';
import type { StageKind } from '../../src/transform/index.js';
import { rng } from '../helpers/rng.js';

const VALID: Record<StageKind, Record<string, unknown>> = {
  users: { name: 'ann', displayName: 'Ann', isGuest: false, properties: {}, displayPicture: { url: 'u', name: 'n', contentType: 'image/png', size: 0 }, idempotencyKey: 'k' },
  channels: { type: 'PUBLIC', members: ['a', 'b'], name: 'c', displayName: 'C', creator: 'a', properties: { x: 1 }, idempotencyKey: 'k' },
  members: { username: 'ann', idempotencyKey: 'k' },
  messages: { type: 'TEXT', channelId: 12, body: 'hi', user: 'ann', groupTag: 'g', properties: {}, idempotencyKey: 'k' },
};

/** Values that probe every rule: wrong types, bounds, empties, specials. */
const PROBES: unknown[] = [
  undefined, null, '', 'x', 'a'.repeat(128), 'a'.repeat(129), 'a'.repeat(257), 'a'.repeat(40_001), 0, -1, 1, 1.5, 2 ** 53, NaN, Infinity,
  true, false, [], ['a'], ['a', 'a'], ['a', 'b', 'c'], Array.from({ length: 11 }, (_, i) => `u${i}`), [1, 2], [''], {}, { a: 1 }, { url: 'u' },
  { url: 'u', name: 'n', contentType: 't', size: -1 }, { url: 'u', name: 'n', contentType: 't', size: 3, extra: 1 },
  'DIRECT', 'PUBLIC', 'PRIVATE', 'TEXT', 'SYSTEM_TEXT', 'text', new Date(0),
];

function paths(reasons: { field: string }[] | undefined): string[] {
  return [...new Set((reasons ?? []).map((r) => r.field))].sort();
}

function check(kind: StageKind, item: unknown) {
  const fast = FAST_VALIDATORS[kind](item);
  const slow = zodValidator(kind)(item);
  const context = JSON.stringify(item, (_, v: unknown) => (typeof v === 'string' && v.length > 20 ? `${v.slice(0, 5)}…${v.length}` : v));
  expect(fast === undefined, `${kind} validity of ${context}`).toBe(slow === undefined);
  expect(paths(fast), `${kind} paths of ${context}`).toEqual(paths(slow));
}

describe('fast validators agree with the zod schemas', () => {
  for (const kind of Object.keys(VALID) as StageKind[]) {
    it(`${kind}: every field replaced by every probe, removed, and unknown fields added`, () => {
      const base = VALID[kind];
      check(kind, base);
      for (const field of [...Object.keys(base), 'extra', 'guest']) {
        const { [field]: _removed, ...without } = base;
        check(kind, without);
        for (const probe of PROBES) check(kind, { ...base, [field]: probe });
      }
      for (const probe of PROBES) check(kind, probe);
    });

    it(`${kind}: 3000 random combinations of probes`, () => {
      const random = rng(kind.length * 7919);
      const fields = [...Object.keys(VALID[kind]), 'extra'];
      for (let n = 0; n < 3000; n++) {
        const item: Record<string, unknown> = { ...VALID[kind] };
        for (const field of fields) {
          const roll = random();
          if (roll < 0.15) delete item[field];
          else if (roll < 0.45) item[field] = PROBES[Math.floor(random() * PROBES.length)];
        }
        check(kind, item);
      }
    });
  }

  it('applies the cross-field rules (DIRECT members, TEXT user) as zod does', () => {
    const cases: Array<[StageKind, Record<string, unknown>]> = [
      ['channels', { type: 'DIRECT', members: ['a'] }],
      ['channels', { type: 'DIRECT', members: ['a', 'b'], name: 'x' }],
      ['channels', { type: 'PUBLIC', members: ['a', 'a'] }],
      ['channels', { type: 'DIRECT', members: ['a', 'b'] }],
      ['messages', { type: 'TEXT', channelId: 1, body: 'b' }],
      ['messages', { type: 'SYSTEM_TEXT', channelId: 1, body: 'b', user: 'u' }],
      ['messages', { type: 'SYSTEM_TEXT', channelId: 1, body: 'b' }],
    ];
    for (const [kind, item] of cases) check(kind, item);
    expect(FAST_VALIDATORS.channels({ type: 'DIRECT', members: ['a'] })?.[0]).toMatchObject({ field: 'members', expected: '2 to 10 members for a DIRECT channel' });
    expect(FAST_VALIDATORS.messages({ type: 'TEXT', channelId: 1, body: 'b' })?.[0]).toMatchObject({ field: 'user' });
    // A reject for members listed twice names the one listed twice, not only the list's length.
    expect(FAST_VALIDATORS.channels({ type: 'PUBLIC', members: ['ann', 'bo', 'ann'] })?.[0]).toMatchObject({ field: 'members', expected: 'unique usernames ("ann" is listed twice)' });
  });
});
