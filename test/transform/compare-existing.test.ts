import { describe, expect, it } from 'vitest';
import { canonicalEqual, compareWithPlatform, mergePatchBetween } from '../../src/transform/index.js';

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

describe('mergePatchBetween and canonicalEqual', () => {
  it('gives an empty patch for equal objects and null for removed keys', () => {
    expect(mergePatchBetween({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toEqual({});
    expect(mergePatchBetween({ a: 1, b: 2 }, { a: 1 })).toEqual({ b: null });
  });

  it('tells arrays in another order, numbers from text and missing from null apart', () => {
    expect(canonicalEqual([1, 2], [2, 1])).toBe(false);
    expect(canonicalEqual(1, '1')).toBe(false);
    expect(canonicalEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(canonicalEqual(null, undefined)).toBe(false);
  });
});
