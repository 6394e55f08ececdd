import { describe, expect, it } from 'vitest';
import { BAD, COERCERS } from '../../src/transform/coerce.js';
import type { Reason } from '../../src/transform/types.js';

describe('integers beyond 2^53 read from JSON sources (as their exact text)', () => {
  it('type string keeps the exact digits; type integer refuses them, saying why, and never rounds', () => {
    const reasons: Reason[] = [];
    expect(COERCERS.string('9007199254740993', reasons, 'properties.id', 'id')).toBe('9007199254740993');
    expect(COERCERS.integer('9007199254740993', reasons, 'properties.n', 'n')).toBe(BAD);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]!.message).toContain('within ±9007199254740991');
    expect(reasons[0]!.message).toContain('type string');
    expect(COERCERS.integer('9007199254740991', [], 'n', 'n')).toBe(9007199254740991);
  });

  it('type json keeps them exact inside JSON text', () => {
    expect(COERCERS.json('{"ids":[1100000000000000001,1100000000000000002]}', [], 'properties.raw', 'raw')).toEqual({ ids: ['1100000000000000001', '1100000000000000002'] });
  });
});
