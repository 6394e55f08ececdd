import { describe, expect, it } from 'vitest';
import { compileSkipRules, MappingError } from '../../src/transform/index.js';

describe('skip rules', () => {
  const test = compileSkipRules([
    { field: 'status', equals: 'deleted' },
    { field: 'n', in: [1, 2] },
    { field: 'email', matches: '@example\\.com$' },
    { field: 'body', empty: true },
    { field: 'lang', notIn: ['en', 'de'] },
  ]);

  it('returns the first matching rule, comparing as text', () => {
    expect(test({ status: 'deleted', body: 'x', lang: 'en' })).toBe(0);
    expect(test({ n: '2', body: 'x', lang: 'en' })).toBe(1);
    expect(test({ n: 2, body: 'x', lang: 'en' })).toBe(1);
    expect(test({ email: 'a@example.com', body: 'x', lang: 'en' })).toBe(2);
    expect(test({ body: '', lang: 'en' })).toBe(3);
    expect(test({ body: 'x', lang: 'fr' })).toBe(4);
    expect(test({ body: 'x' })).toBe(4);
    expect(test({ status: 'active', n: '3', email: 'a@b.c', body: 'x', lang: 'de' })).toBe(-1);
  });

  it('ignore the spaces around a text, as a spreadsheet cell "deleted " or "   " shows', () => {
    expect(test({ status: 'deleted ', body: 'x', lang: 'en' })).toBe(0);
    expect(test({ n: ' 2', body: 'x', lang: 'en' })).toBe(1);
    expect(test({ email: 'a@example.com\t', body: 'x', lang: 'en' })).toBe(2);
    expect(test({ body: '   ', lang: 'en' })).toBe(3);
    expect(test({ body: 'x', lang: ' de ' })).toBe(-1);
    expect(compileSkipRules([{ field: 'a', notEquals: 'x' }])({ a: ' x' })).toBe(-1);
    expect(compileSkipRules([{ field: 'a', empty: false }])({ a: ' \u00a0' })).toBe(-1);
  });

  it('refuses a rule without exactly one test, or with a bad regular expression, naming the rule', () => {
    expect(() => compileSkipRules([{ field: 'a' }])).toThrow(/skip\.0/);
    expect(() => compileSkipRules([{ field: 'a', equals: 1 }, { field: 'a', equals: 1, in: [1] }])).toThrow(/skip\.1/);
    expect(() => compileSkipRules([{ field: 'a', matches: '(' }])).toThrow(MappingError);
    expect(() => compileSkipRules([{ field: 'a', matches: '(' }])).toThrow(expect.objectContaining({ details: expect.objectContaining({ path: 'skip.0.matches' }) }));
    // A list or an object has no text a value could equal, and an empty list holds for no value: either rule would never (or always) hold.
    expect(() => compileSkipRules([{ field: 'a', equals: ['x', 'y'] }])).toThrow('skip.0.equals: compares one value, found a list; for any of several values write `in: [x, y]`');
    expect(() => compileSkipRules([{ field: 'a', notEquals: { x: 1 } }])).toThrow('skip.0.notEquals: compares one value, found an object');
    expect(() => compileSkipRules([{ field: 'a', in: [] }])).toThrow('skip.0.in: an empty list, which no value is in');
    // Written as a JavaScript literal, a pattern holds a `^` after a `/` (or a `$` before one): it matches no text.
    for (const matches of ['/^bot/i', '/^bot-/', '/-bot$/'])
      expect(() => compileSkipRules([{ field: 'a', matches }]), matches).toThrow(`skip.0.matches: ${JSON.stringify(matches)} is written as a JavaScript /pattern/flags literal, which no text matches here: write the pattern alone`);
    expect(compileSkipRules([{ field: 'a', matches: '/archive/' }])({ a: 'x/archive/y' })).toBe(0);
    expect(() => compileSkipRules([{ field: 'a', notIn: ['x', ['y']] }])).toThrow('skip.0.notIn: compares values, found a list among them');
  });
});
