import { describe, expect, it } from 'vitest';
import { surelyValidMessage } from '../../src/sandbox/fast-accept.js';
import { MessageImportItem } from '../../src/wire/imports.js';

const VALID = { type: 'TEXT', channelId: 12, body: 'hi', user: 'ann', groupTag: 'g', properties: { a: 1 }, idempotencyKey: 'k' };

const PROBES: unknown[] = [
  undefined, null, '', 'x', 'a'.repeat(128), 'a'.repeat(129), 'a'.repeat(256), 'a'.repeat(257), 'a'.repeat(40_000), 'a'.repeat(40_001),
  0, -1, 1, 1.5, 2 ** 53, 2 ** 53 - 1, NaN, Infinity, 5n, -5n, true, false, [], ['a'], {}, { a: 1 }, Object.create({ x: 1 }),
  'TEXT', 'SYSTEM_TEXT', 'text', new Date(0),
];

/** Every field set to every probe, every field left out, one unknown field, and SYSTEM_TEXT variants. */
function* variants(): Generator<unknown> {
  yield VALID;
  for (const field of Object.keys(VALID)) {
    const { [field]: _left, ...without } = VALID as Record<string, unknown>;
    yield without;
    for (const probe of PROBES) yield { ...VALID, [field]: probe };
  }
  yield { ...VALID, extra: 1 };
  const { user: _user, ...system } = VALID;
  yield { ...system, type: 'SYSTEM_TEXT' };
  for (const probe of PROBES) yield { ...system, type: 'SYSTEM_TEXT', user: probe };
  for (const probe of PROBES) yield probe;
}

describe('the sandbox fast accept of message import items', () => {
  it('says yes only to items the strict wire schema accepts', () => {
    let yes = 0;
    let checked = 0;
    for (const item of variants()) {
      checked++;
      if (!surelyValidMessage(item)) continue;
      yes++;
      expect(MessageImportItem.safeParse(item).success, JSON.stringify(item, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toBe(true);
    }
    // It must also take the common shapes, or it buys nothing.
    expect(yes).toBeGreaterThan(20);
    expect(checked).toBeGreaterThan(200);
  });

  it('takes the common shapes: a TEXT with a sender, a SYSTEM_TEXT without, with and without properties', () => {
    expect(surelyValidMessage(VALID)).toBe(true);
    expect(surelyValidMessage({ type: 'SYSTEM_TEXT', channelId: 3, body: 'joined' })).toBe(true);
    expect(surelyValidMessage({ type: 'TEXT', channelId: 3, body: 'x', user: 'u', properties: { source: { id: 'm1' } } })).toBe(true);
  });

  it('leaves to zod what it is unsure of: big integers, unknown fields, wrong pairings', () => {
    expect(surelyValidMessage({ ...VALID, channelId: 5n })).toBe(false);
    expect(surelyValidMessage({ ...VALID, extra: true })).toBe(false);
    expect(surelyValidMessage({ type: 'SYSTEM_TEXT', channelId: 3, body: 'x', user: 'ann' })).toBe(false);
    expect(surelyValidMessage({ type: 'TEXT', channelId: 3, body: 'x' })).toBe(false);
  });
});
