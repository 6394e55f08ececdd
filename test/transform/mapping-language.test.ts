import { describe, expect, it } from 'vitest';
import { compileMapping, MappingError } from '../../src/transform/compile-mapping.js';
import { createStageProcessor } from '../../src/transform/stage-processor.js';
import type { Reason } from '../../src/transform/types.js';

function run(mapping: Parameters<typeof compileMapping>[0], record: Record<string, unknown>, key?: string, userNames?: (k: string) => string | undefined) {
  const compiled = compileMapping(mapping, userNames ? { userNames } : {});
  const reasons: Reason[] = [];
  const item = compiled.map(record, reasons, key);
  return { item, reasons };
}

describe('value maps', () => {
  const type = { field: 't', map: { c: 'PUBLIC', p: 'PRIVATE', d: 'DIRECT' } };

  it('turn a source code into the value written in the map', () => {
    expect(run({ type }, { t: 'p' }).item).toEqual({ type: 'PRIVATE' });
    expect(run({ type }, { t: 'd' }).item).toEqual({ type: 'DIRECT' });
  });

  it('compare as text, so the JSON number 1 and the CSV text "1" take the same entry', () => {
    const mapping = { n: { field: 'x', map: { '1': 'one' } } };
    expect(run(mapping, { x: 1 }).item).toEqual({ n: 'one' });
    expect(run(mapping, { x: '1' }).item).toEqual({ n: 'one' });
  });

  it('ignore the spaces around a value, as conditions do: "p " is p, not the default', () => {
    expect(run({ type: { ...type, default: 'PUBLIC' } }, { t: 'p ' }).item).toEqual({ type: 'PRIVATE' });
    expect(run({ type }, { t: ' d' }).item).toEqual({ type: 'DIRECT' });
    expect(() => compileMapping({ type: { field: 't', map: { c: 'PUBLIC', ' c': 'PRIVATE' } } })).toThrow('type.map: the keys "c" and " c" are the same key');
  });

  it('reject a value with no entry, naming the value, the field and the keys, unless a default is given', () => {
    const { item, reasons } = run({ type }, { t: 'x' });
    expect(item).toEqual({});
    expect(reasons).toEqual([
      { field: 'type', expected: 'one of the values the map lists ("c", "p", "d")', found: '"x"', sourceField: 't', message: 'type (from source field "t"): expected one of the values the map lists ("c", "p", "d"), found "x"' },
    ]);
    expect(run({ type: { ...type, default: 'PUBLIC' } }, { t: 'x' })).toEqual({ item: { type: 'PUBLIC' }, reasons: [] });
    expect(run({ type: { ...type, default: 'PUBLIC' } }, {})).toEqual({ item: { type: 'PUBLIC' }, reasons: [] });
  });

  it('cannot be combined with a type or a split', () => {
    expect(() => compileMapping({ type: { ...type, type: 'string' } })).toThrow(MappingError);
    expect(() => compileMapping({ type: { ...type, split: '|' } })).toThrow('"map" and "split" cannot be combined');
  });
});

describe('conditions (when)', () => {
  const mapping = {
    type: { field: 'subtype', map: { '': 'TEXT', join: 'SYSTEM_TEXT', leave: 'SYSTEM_TEXT' }, default: 'TEXT' },
    user: { field: 'author', when: { field: 'subtype', notIn: ['join', 'leave'] } },
    body: 'text',
  };

  it('leave an entry out for records the condition does not hold for', () => {
    expect(run(mapping, { subtype: 'join', author: 'ann', text: 'ann joined' }).item).toEqual({ type: 'SYSTEM_TEXT', body: 'ann joined' });
    expect(run(mapping, { subtype: '', author: 'ann', text: 'hi' }).item).toEqual({ type: 'TEXT', user: 'ann', body: 'hi' });
  });

  it('take a list that must all hold, and apply to const and template entries', () => {
    const m = {
      a: { const: 'yes', when: [{ field: 'x', equals: 1 }, { field: 'y', empty: false }] },
      b: { template: '{x}-{y}', when: { field: 'x', matches: '^\\d+$' } },
    };
    expect(run(m, { x: '1', y: 'z' }).item).toEqual({ a: 'yes', b: '1-z' });
    expect(run(m, { x: '1', y: '' }).item).toEqual({ b: '1-' });
    expect(run(m, { x: 'q', y: 'z' }).item).toEqual({});
  });

  it('do not apply the default when they do not hold', () => {
    expect(run({ u: { field: 'a', default: 'd', when: { field: 'k', equals: 'yes' } } }, { k: 'no' }).item).toEqual({});
    expect(run({ u: { field: 'a', default: 'd', when: { field: 'k', equals: 'yes' } } }, { k: 'yes' }).item).toEqual({ u: 'd' });
  });

  it('are checked when compiled, with the path of the broken condition', () => {
    const compile = () => compileMapping({ u: { field: 'a', when: [{ field: 'k', equals: 1 }, { field: 'k', matches: '(' }] } });
    expect(compile).toThrow(MappingError);
    try {
      compile();
    } catch (error) {
      expect((error as MappingError).details.path).toBe('u.when.1.matches');
    }
    expect(() => compileMapping({ u: { field: 'a', when: { field: 'k' } } })).toThrow('u.when: a condition has exactly one of');
  });
});

describe('name normalisation', () => {
  it('applies unicode, then case, then the platform name form', () => {
    expect(run({ n: { field: 'x', unicode: 'NFKC' } }, { x: 'ﬁle' }).item).toEqual({ n: 'file' });
    expect(run({ n: { field: 'x', case: 'lower' } }, { x: 'ÅSA' }).item).toEqual({ n: 'åsa' });
    expect(run({ n: { field: 'x', case: 'upper' } }, { x: 'dept' }).item).toEqual({ n: 'DEPT' });
    expect(run({ n: { field: 'x', asName: true } }, { x: '  Anna María López ' }).item).toEqual({ n: 'anna-maría-lópez' });
    // A combining accent and a precomposed one are the same name.
    expect(run({ n: { field: 'x', asName: true } }, { x: 'Jose\u0301' }).item).toEqual(run({ n: { field: 'x', asName: true } }, { x: 'Jos\u00e9' }).item);
  });

  it('treats a name with nothing left as missing, so the default applies', () => {
    expect(run({ n: { field: 'x', asName: true, default: 'unnamed' } }, { x: '***' }).item).toEqual({ n: 'unnamed' });
  });
});

describe('unique names', () => {
  it('suffix: later records with other keys get name-2, name-3, compared without case; a key seen again keeps its name', () => {
    const compiled = compileMapping({ name: { field: 'n', asName: true, unique: 'suffix' } });
    const names = [['k1', 'Bob'], ['k2', 'bob'], ['k3', 'BOB'], ['k1', 'Bob'], ['k4', 'bob-2']].map(([key, n]) => compiled.map({ n }, [], key).name);
    expect(names).toEqual(['bob', 'bob-2', 'bob-3', 'bob', 'bob-2-2']);
  });

  it('reject: a later record with another key is rejected, naming the key holding the name', () => {
    const compiled = compileMapping({ name: { field: 'n', unique: 'reject' } });
    expect(compiled.map({ n: 'ann' }, [], 'u1')).toEqual({ name: 'ann' });
    const reasons: Reason[] = [];
    expect(compiled.map({ n: 'ANN' }, reasons, 'u2')).toEqual({});
    expect(reasons[0]!.message).toBe('name (from source field "n"): expected a name no earlier record of the stage has (record with key "u1" has it; unique: reject), found "ANN"');
    expect(compiled.map({ n: 'ann' }, [], 'u1')).toEqual({ name: 'ann' });
  });

  it('applies only to name', () => {
    expect(() => compileMapping({ displayName: { field: 'n', unique: 'suffix' } })).toThrow('"unique" applies to the `name` of users and channels');
  });
});

describe('user references', () => {
  const names = new Map([['u1', 'ann'], ['u2', 'bob-2']]);
  const lookup = (k: string) => names.get(k);

  it('turn a users-stage key, or each of a list, into the platform name', () => {
    expect(run({ user: { field: 'author_id', ref: 'user' } }, { author_id: 'u2' }, undefined, lookup).item).toEqual({ user: 'bob-2' });
    expect(run({ members: { field: 'm', split: '|', ref: 'user' } }, { m: 'u1|u2' }, undefined, lookup).item).toEqual({ members: ['ann', 'bob-2'] });
  });

  it('reject a key the users stage did not import', () => {
    const { reasons } = run({ members: { field: 'm', split: '|', ref: 'user' } }, { m: 'u1|u9' }, undefined, lookup);
    expect(reasons.map((r) => r.message)).toEqual(['members.1 (from source field "m"): expected the key of a user that the users stage imported, found "u9"']);
  });

  it('read a default as a users-stage key too, never as a name: a default no user has rejects the record, saying it was the default', () => {
    const user = { field: 'author_id', ref: 'user' as const, default: 'u2' };
    expect(run({ user }, { author_id: '' }, undefined, lookup)).toEqual({ item: { user: 'bob-2' }, reasons: [] });
    const { item, reasons } = run({ user: { ...user, default: 'bob' } }, {}, undefined, lookup);
    expect(item).toEqual({});
    expect(reasons.map((r) => r.message)).toEqual([
      'user (from source field "author_id"): expected the key of a user that the users stage imported (the source field is missing, so the default was used), found "bob"',
    ]);
    const members = { field: 'm', split: '|', ref: 'user' as const, default: ['u1', 'u9'] };
    expect(run({ members }, { m: 'u2' }, undefined, lookup).item).toEqual({ members: ['bob-2'] });
    expect(run({ members }, {}, undefined, lookup).reasons.map((r) => r.field)).toEqual(['members.1']);
    const mapped = { field: 't', map: { sys: 'u1' }, default: 'u2', ref: 'user' as const };
    expect(run({ user: mapped }, {}, undefined, lookup).item).toEqual({ user: 'bob-2' });
  });

  it('name, for a key no user has, the key that reads the same but for spaces, case or Unicode form', () => {
    const keys = new Map([['U1', 'ann'], ['Jos\u00e9', 'jose']]);
    const lookupKeys = (k: string) => keys.get(k);
    const messages = (value: string) => run({ user: { field: 'a', ref: 'user' } }, { a: value }, undefined, lookupKeys).reasons.map((r) => r.message);
    expect(messages(' U1')).toEqual(['user (from source field "a"): expected the key of a user that the users stage imported (the key "U1" differs from it only in spaces, case or Unicode form: set trim, case or unicode on this entry), found " U1"']);
    expect(messages('u1')[0]).toContain('(the key "U1" differs from it only');
    expect(messages('Jose\u0301')[0]).toContain('(the key "José" differs from it only');
    expect(messages('U2')).toEqual(['user (from source field "a"): expected the key of a user that the users stage imported, found "U2"']);
  });

  it('make a stage processor require the users table', () => {
    expect(() => createStageProcessor({ pipelineId: 'p', stage: 'messages', key: 'id', channel: 'c', mapping: { type: { const: 'TEXT' }, body: 'b', user: { field: 'a', ref: 'user' } } }, { channelIds: () => 1 })).toThrow(
      'needs deps.userNames',
    );
  });
});
