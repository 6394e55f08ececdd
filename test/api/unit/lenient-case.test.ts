import { describe, expect, it } from 'vitest';
import { withCamelCaseAliases } from '../../../src/wire/lenient-case.js';

describe('withCamelCaseAliases', () => {
  it('adds camelCase aliases, keeps the originals, lets a camelCase key already there win, and leaves HAL keys alone', () => {
    const input = { display_name: 'A', last_edited_time: 't', name_: 'x', displayName: 'kept', created_time: 'c', _links: {}, _embedded: {}, id: 1 };
    expect(withCamelCaseAliases(input)).toEqual({ ...input, lastEditedTime: 't', createdTime: 'c' });
    expect(input).not.toHaveProperty('createdTime');
  });

  it('returns anything else as it is, the same object when nothing needs an alias', () => {
    const camel = { id: 1, displayName: 'A' };
    expect(withCamelCaseAliases(camel)).toBe(camel);
    for (const other of [null, 3, 'a_b', [{ a_b: 1 }]]) expect(withCamelCaseAliases(other)).toBe(other);
  });
});
