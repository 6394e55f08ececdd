import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStageProcessor, idempotencyKeyFor, idempotencyKeysOf, IDEMPOTENCY_KEY_PREFIX, MappingError, resolveChannelId, sourceKeyOf } from '../../src/transform/index.js';
import type { StageProcessorSpec } from '../../src/transform/index.js';

const at = (line: number) => ({ file: 'f.csv', line, index: line - 2 });

describe('idempotency keys', () => {
  it('are deterministic, versioned and differ by pipeline, stage and source key', () => {
    const key = idempotencyKeyFor('p', 'users', 'u1');
    expect(key).toBe(idempotencyKeyFor('p', 'users', 'u1'));
    expect(key).toMatch(new RegExp(`^${IDEMPOTENCY_KEY_PREFIX}[0-9a-f]{32}$`));
    // sha256('["p","users","u1"]'), first 32 hex digits: the documented scheme, pinned.
    expect(key).toBe('cp1-f5a55e3ec790af57a6fc4fe95cdc2d08');
    const others = [idempotencyKeyFor('q', 'users', 'u1'), idempotencyKeyFor('p', 'channels', 'u1'), idempotencyKeyFor('p', 'users', 'u2'), idempotencyKeyFor('p,users', 'users', '')];
    expect(new Set([key, ...others]).size).toBe(5);
  });

  it('hash exactly the JSON array of the three parts, whatever characters the names hold', () => {
    for (const [name, sourceKey] of [['p', 'u1'], ['a"b\\c', 'k\u2028"é🎉'], ['', '["x","y"]']] as const) {
      const expected = `cp1-${createHash('sha256').update(JSON.stringify([name, 'messages', sourceKey])).digest('hex').slice(0, 32)}`;
      expect(idempotencyKeysOf(name, 'messages')(sourceKey)).toBe(expected);
      expect(idempotencyKeyFor(name, 'messages', sourceKey)).toBe(expected);
    }
  });

  it('source keys: one field as text, several as a JSON array, missing parts give none', () => {
    expect(sourceKeyOf(['a'])).toBe('a');
    expect(sourceKeyOf([7])).toBe('7');
    expect(sourceKeyOf(['a', 'b'])).toBe('["a","b"]');
    expect(sourceKeyOf(['a', ''])).toBeUndefined();
    expect(sourceKeyOf([null])).toBeUndefined();
  });
});

describe('createStageProcessor', () => {
  const users: StageProcessorSpec = {
    pipelineId: 'demo',
    stage: 'users',
    key: 'id',
    mapping: { name: 'login', displayName: { template: '{first} {last}' }, isGuest: 'guest', properties: { joined: { field: 'joined', type: 'date' } } },
    skip: [{ field: 'status', equals: 'deleted' }],
  };
  const process = createStageProcessor(users);

  it('accepts a good record with its idempotency key and source key', () => {
    const record = { id: 'u1', login: 'ann', first: 'Ann', last: 'Lee', guest: 'no', joined: '2024-01-02' };
    const result = process({ record, position: at(2) });
    expect(result).toEqual({
      kind: 'accepted',
      item: {
        name: 'ann', displayName: 'Ann Lee', isGuest: false,
        properties: { joined: '2024-01-02T00:00:00.000Z', chatportPipeline: 'demo', chatportKey: 'u1' },
        idempotencyKey: idempotencyKeyFor('demo', 'users', 'u1'),
      },
      position: at(2),
      sourceKey: 'u1',
      raw: record,
    });
  });

  it('gives users the identity properties (pipeline id, source key) when the mapping has none', () => {
    const result = process({ record: { id: 'u1', login: 'ann', first: 'Ann', guest: 'yes' }, position: at(2) });
    expect(result.kind === 'accepted' && result.item.properties).toEqual({ chatportPipeline: 'demo', chatportKey: 'u1' });
  });

  it('refuses a mapping that sets the identity properties itself', () => {
    for (const name of ['chatportKey', 'chatportPipeline'])
      expect(() => createStageProcessor({ ...users, mapping: { ...users.mapping, properties: { [name]: 'login' } } })).toThrow(`mapping.properties.${name}: chatport sets ${name} itself`);
  });

  it('takes a key of spaces only (a spreadsheet cell that shows nothing) for none: every such record was one key', () => {
    expect(sourceKeyOf(['  '])).toBeUndefined();
    expect(sourceKeyOf(['a', '\u00a0'])).toBeUndefined();
    expect(sourceKeyOf([' a '])).toBe(' a ');
    const result = process({ record: { id: '  ', login: 'ann', first: 'Ann', guest: 'no' }, position: at(3) });
    expect(result.kind === 'rejected' && result.reasons.map((r) => r.message)).toEqual(['idempotencyKey (from source field "id"): expected a source key (field id), found "  "']);
    const messages = createStageProcessor({ pipelineId: 'demo', stage: 'messages', key: 'id', channel: 'c', mapping: { type: { const: 'TEXT' }, user: 'u', body: 'b' } }, { channelIds: (k) => (k === '  ' ? 1 : undefined) });
    const message = messages({ record: { id: 'm1', c: '  ', u: 'ann', b: 'hi' }, position: at(4) });
    expect(message.kind === 'rejected' && message.reasons.map((r) => r.field)).toEqual(['channelId']);
  });

  it('rejects with every reason, once per field, with the position and the raw record', () => {
    const record = { id: '', login: '', first: 'Ann', guest: 'maybe', joined: 'soon', extra: 'x' };
    const result = process({ record, position: at(9) });
    expect(result.kind).toBe('rejected');
    if (result.kind !== 'rejected') return;
    expect(result.position).toEqual(at(9));
    expect(result.raw).toBe(record);
    expect(result.reasons.map((r) => r.field)).toEqual(['idempotencyKey', 'isGuest', 'properties.joined', 'name']);
    expect(result.reasons[1]).toMatchObject({ field: 'isGuest', sourceField: 'guest', found: '"maybe"' });
  });

  it('skips records a rule matches, saying which rule, with the record (for the run folder\'s skipped/ listing)', () => {
    expect(process({ record: { id: 'u1', status: 'deleted' }, position: at(3) })).toEqual({ kind: 'skipped', position: at(3), rule: 0, because: 'status equals "deleted"', raw: { id: 'u1', status: 'deleted' } });
  });

  it('turns an unparseable record into a rejected one', () => {
    const result = process({ unparseable: { message: 'expected 2 fields, found 3', expected: '2 fields', raw: 'a,b,c' }, position: at(4) });
    expect(result).toMatchObject({ kind: 'rejected', raw: 'a,b,c', reasons: [{ field: '', expected: '2 fields', message: 'expected 2 fields, found 3' }] });
  });

  it('puts the pipeline id and source key into channel properties, without touching a shared constant', () => {
    const shared = { origin: 'x' };
    const channels = createStageProcessor({ pipelineId: 'demo', stage: 'channels', key: 'k', mapping: { type: { const: 'DIRECT' }, members: { field: 'm', split: '|' }, properties: { const: shared } } });
    const result = channels({ record: { k: 'd1', m: 'a|b' }, position: at(2) });
    expect(result.kind === 'accepted' && result.item.properties).toEqual({ origin: 'x', chatportPipeline: 'demo', chatportKey: 'd1' });
    expect(shared).toEqual({ origin: 'x' });
  });

  it('resolves the channel of messages into channelId, and of members beside the item', () => {
    const ids = new Map([['c1', 41]]);
    const messages = createStageProcessor({ pipelineId: 'demo', stage: 'messages', key: 'id', channel: 'ch', mapping: { type: { const: 'TEXT' }, body: 'text', user: 'from' } }, { channelIds: ids });
    const ok = messages({ record: { id: 'm1', ch: 'c1', text: 'hi', from: 'ann' }, position: at(2) });
    expect(ok).toMatchObject({ kind: 'accepted', channelKey: 'c1', channelId: 41, item: { type: 'TEXT', body: 'hi', user: 'ann', channelId: 41 } });
    const unknown = messages({ record: { id: 'm2', ch: 'c9', text: 'hi', from: 'ann' }, position: at(3) });
    expect(unknown.kind === 'rejected' && unknown.reasons).toEqual([
      expect.objectContaining({ field: 'channelId', sourceField: 'ch', found: '"c9"', expected: 'the key of a channel that the channels stage imported' }),
    ]);
    const members = createStageProcessor({ pipelineId: 'demo', stage: 'members', key: ['ch', 'u'], channel: 'ch', mapping: { username: 'u' } }, { channelIds: (k) => (k === 'c1' ? 7 : undefined) });
    const member = members({ record: { ch: 'c1', u: 'ann' }, position: at(2) });
    expect(member).toMatchObject({ kind: 'accepted', channelId: 7, sourceKey: '["c1","ann"]', item: { username: 'ann' } });
    expect(member.kind === 'accepted' && Object.keys(member.item)).toEqual(['username', 'idempotencyKey']);
  });

  it('resolveChannelId is a pure lookup with reasons', () => {
    expect(resolveChannelId('a', new Map([['a', 1]]), 'ch')).toEqual({ ok: true, channelId: 1 });
    expect(resolveChannelId(undefined, new Map(), 'ch')).toMatchObject({ ok: false, reason: { field: 'channelId', found: 'missing' } });
  });

  it('refuses specs that cannot work, naming the path in the stage', () => {
    const bad = (spec: Partial<StageProcessorSpec>) => () => createStageProcessor({ ...users, ...spec } as StageProcessorSpec, { channelIds: new Map() });
    expect(bad({ mapping: { idempotencyKey: 'x' } })).toThrow(MappingError);
    expect(bad({ stage: 'messages', mapping: { channelId: 'x' }, channel: 'c' })).toThrow(/mapping\.channelId/);
    expect(bad({ stage: 'members', mapping: { username: 'u' } })).toThrow(/channel/);
    expect(bad({ channel: 'c' })).toThrow(/only members and messages/);
    expect(bad({ mapping: { properties: { x: { template: '{' } } } })).toThrow(
      expect.objectContaining({ name: 'MappingError', details: expect.objectContaining({ path: 'mapping.properties.x' }) }),
    );
  });
});
