import { describe, expect, it } from 'vitest';
import { createStageProcessor, type NestedMapping, type Processed, type SkipRule } from '../../src/transform/index.js';
import { parseJsonExact, stringifyJson } from '../../src/shared/lossless-json.js';

/**
 * A source record's integer beyond 2^53 read as a bigint (the import's formats) against the same record
 * read as its digits (as before): where the mapping uses it as text the outcome is the same, and where it
 * carries it as it is into properties it is a number.
 */

const BIG = '12345678901234567890';
const LINE = `{"id":${BIG},"n":${BIG},"list":[${BIG},"x"],"pic":{"url":${BIG},"name":"a.png","contentType":"image/png","size":1},"meta":{"deep":[${BIG}]}}`;

function processBoth(mapping: NestedMapping, skip: SkipRule[] = [], stage: 'users' | 'channels' = 'users'): { text: Processed; bigint: Processed } {
  const process = createStageProcessor({ pipelineId: 'p', stage, key: 'id', mapping, skip });
  const at = { file: 'f.ndjson', index: 0 };
  // The record as read differs (a bigint or its digits); the rejects file lists it as read.
  const withoutRaw = ({ raw: _raw, ...rest }: Processed & { raw?: unknown }) => rest as Processed;
  return {
    text: withoutRaw(process({ record: parseJsonExact(LINE, 'text') as Record<string, unknown>, position: at })),
    bigint: withoutRaw(process({ record: parseJsonExact(LINE, 'bigint') as Record<string, unknown>, position: at })),
  };
}

const USER = { displayName: { const: 'd' }, isGuest: { const: false } };

describe('integers beyond 2^53 read as bigints from JSON sources', () => {
  it('are their digits where used as text: key, names (untyped, asName, unique), templates, type string, value maps, conditions, lists and objects outside properties', () => {
    const { text, bigint } = processBoth({
      ...USER,
      name: { field: 'n', unique: 'suffix' },
      displayName: { template: '{n} {id}' },
      displayPicture: 'pic',
      properties: {
        asName: { field: 'n', asName: true },
        s: { field: 'n', type: 'string' },
        mapped: { field: 'n', map: { [BIG]: 'found' } },
        when: { const: 'yes', when: { field: 'n', equals: BIG } },
        whenIn: { const: 'in', when: { field: 'n', in: [BIG] } },
        matches: { const: 'matched', when: { field: 'n', matches: '^1234' } },
        split: { field: 'list', split: ',', type: 'string' },
      },
    });
    expect(bigint).toEqual(text);
    expect(bigint).toMatchObject({
      kind: 'accepted',
      sourceKey: BIG,
      item: {
        name: BIG,
        displayName: `${BIG} ${BIG}`,
        displayPicture: { url: BIG },
        properties: { asName: BIG, s: BIG, mapped: 'found', when: 'yes', whenIn: 'in', matches: 'matched', split: [BIG, 'x'], chatportKey: BIG },
      },
    });
  });

  it('a list outside properties (members) holds the digits', () => {
    const { text, bigint } = processBoth({ type: { const: 'PUBLIC' }, name: { const: 'room' }, members: 'list' }, [], 'channels');
    expect(bigint).toEqual(text);
    expect(bigint).toMatchObject({ kind: 'accepted', item: { members: [BIG, 'x'] } });
  });

  it('skip rules compare the digits', () => {
    const { text, bigint } = processBoth({ ...USER, name: 'n' }, [{ field: 'n', equals: BIG }]);
    expect(bigint).toEqual(text);
    expect(bigint.kind).toBe('skipped');
  });

  it('type integer, number, boolean and date take and refuse them as they took and refused their digits', () => {
    for (const type of ['integer', 'number', 'boolean', 'date'] as const) {
      const { text, bigint } = processBoth({ ...USER, name: { const: 'u' }, properties: { v: { field: 'n', type } } });
      expect(bigint, type).toEqual(text);
    }
  });

  it('are numbers with every digit in properties, untyped (alone, in lists, in objects) and as type json', () => {
    const { bigint } = processBoth({ ...USER, name: { const: 'u' }, properties: { n: 'n', list: 'list', meta: 'meta', deep: { n: 'n' }, json: { field: 'meta', type: 'json' } } });
    expect(bigint.kind).toBe('accepted');
    const item = (bigint as Extract<Processed, { kind: 'accepted' }>).item;
    expect(stringifyJson(item.properties)).toBe(
      `{"n":${BIG},"list":[${BIG},"x"],"meta":{"deep":[${BIG}]},"deep":{"n":${BIG}},"json":{"deep":[${BIG}]},"chatportPipeline":"p","chatportKey":"${BIG}"}`,
    );
  });
});
