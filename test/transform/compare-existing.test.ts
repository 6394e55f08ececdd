import { describe, expect, it } from 'vitest';
import { sameJsonValue } from '../../src/shared/lossless-json.js';
import { compareWithPlatform, mergePatchBetween } from '../../src/transform/index.js';

describe('compareWithPlatform', () => {
  const held = { name: 'ann', displayName: 'Ann', isGuest: false, properties: { chatportPipeline: 'p', chatportKey: 'u1', dept: 'ops', tags: ['a', 'b'], address: { city: 'Oslo', zip: '0150' } } };

  it('finds nothing when the item holds the same values, whatever the key order, ignoring the identity properties', () => {
    const item = { isGuest: false, properties: { address: { zip: '0150', city: 'Oslo' }, tags: ['a', 'b'], dept: 'ops', chatportKey: 'u1', chatportPipeline: 'p' }, displayName: 'Ann', name: 'ann', idempotencyKey: 'k' };
    expect(compareWithPlatform('users', item, held)).toEqual({ differences: [], patch: {} });
  });

  it('names every differing field with both values and makes the merge patch that applies them', () => {
    const item = { name: 'ann', displayName: 'Ann Lee', isGuest: true, properties: { chatportPipeline: 'p', chatportKey: 'u1', tags: ['b', 'a'], address: { city: 'Bergen', zip: '0150' }, level: 2 } };
    const result = compareWithPlatform('users', item, held);
    expect(result.differences.map((d) => d.field)).toEqual(['displayName', 'isGuest', 'properties']);
    expect(result.differences[0]).toEqual({ field: 'displayName', platform: 'Ann', source: 'Ann Lee' });
    expect(result.differences[2]).toEqual({ field: 'properties', platform: { dept: 'ops', tags: ['a', 'b'], address: { city: 'Oslo', zip: '0150' } }, source: { tags: ['b', 'a'], address: { city: 'Bergen', zip: '0150' }, level: 2 } });
    expect(result.patch).toEqual({ displayName: 'Ann Lee', isGuest: true, properties: { tags: ['b', 'a'], address: { city: 'Bergen' }, level: 2, dept: null } });
  });

  it('compares only the fields the item carries, and for channels never isGuest', () => {
    const channel = { name: 'general', displayName: 'general', properties: { chatportPipeline: 'p', chatportKey: 'c1' } };
    expect(compareWithPlatform('channels', { type: 'PUBLIC', name: 'general', members: ['x'], properties: { chatportPipeline: 'p', chatportKey: 'c1' } }, channel).differences).toEqual([]);
    expect(compareWithPlatform('channels', { name: 'general', displayName: 'General', isGuest: true, properties: {} }, channel).patch).toEqual({ displayName: 'General' });
  });
});

describe('mergePatchBetween and sameJsonValue', () => {
  it('gives an empty patch for equal objects and null for removed keys', () => {
    expect(mergePatchBetween({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toEqual({});
    expect(mergePatchBetween({ a: 1, b: 2 }, { a: 1 })).toEqual({ b: null });
  });

  it('takes a member holding null as absent on either side: a merge patch can only remove it', () => {
    expect(mergePatchBetween({ a: 1, n: { deep: true, keep: 1 } }, { a: null, n: { deep: null, keep: 1 } })).toEqual({ a: null, n: { deep: null } });
    expect(mergePatchBetween({ n: { keep: 1 } }, { a: null, n: { deep: null, keep: 1 } })).toEqual({});
    expect(mergePatchBetween({ a: null, list: [null] }, { list: [null] })).toEqual({});
    expect(mergePatchBetween({ list: [1] }, { list: [null] })).toEqual({ list: [null] });
  });

  it('tells arrays in another order, numbers from text and missing from null apart', () => {
    expect(sameJsonValue([1, 2], [2, 1])).toBe(false);
    expect(sameJsonValue(1, '1')).toBe(false);
    expect(sameJsonValue({ a: null }, {})).toBe(false);
    expect(sameJsonValue(null, undefined)).toBe(false);
  });

  it('finds nothing to patch for -0 or a double of 16+ digits the platform holds as sent (read back as 0 and a bigint)', () => {
    const held = { name: 'b1', properties: { chatportPipeline: 'p', chatportKey: 'u1', z: 0, n: 123456789012345680n, e: 100000000000000000000n } };
    const item = { name: 'b1', properties: { chatportPipeline: 'p', chatportKey: 'u1', z: -0, n: Number('123456789012345678'), e: 1e20 } };
    expect(compareWithPlatform('users', item, held)).toEqual({ differences: [], patch: {} });
    const other = { ...item, properties: { ...item.properties, n: Number('9007199254740993'), e: '100000000000000000000' } };
    expect(compareWithPlatform('users', other, held).patch).toEqual({ properties: { n: 9007199254740992, e: '100000000000000000000' } });
  });
});
