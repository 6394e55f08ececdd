import { describe, expect, it } from 'vitest';
import { parseAll, pieces } from './collect.js';

/** Records of both JSON formats, with integers at, around and beyond 2^53 as keys, nested and in strings. */
const RECORDS = [
  '{"id":9007199254740993,"n":1}',
  '{"id":9007199254740992,"n":2}',
  '{"id":1100000000000000001,"ref":{"ids":[-9007199254740995,7]},"s":"x,12345678901234567890"}',
  '{"id":9007199254740991,"f":12345678901234567.5,"e":1e21}',
];

const EXPECTED = [
  { id: '9007199254740993', n: 1 },
  { id: '9007199254740992', n: 2 },
  { id: '1100000000000000001', ref: { ids: ['-9007199254740995', 7] }, s: 'x,12345678901234567890' },
  { id: 9007199254740991, f: Number('12345678901234567.5'), e: 1e21 },
];

describe('integers beyond 2^53 in JSON sources', () => {
  it('NDJSON keeps their exact digits (as text); safe integers and non-integers stay numbers', async () => {
    for (const size of [3, 1000]) {
      const items = await parseAll(pieces(`${RECORDS.join('\n')}\n`, size), { format: 'ndjson' });
      expect(items.map((i) => ('record' in i ? i.record : i))).toEqual(EXPECTED);
    }
  });

  it('a JSON array keeps their exact digits (as text); safe integers and non-integers stay numbers', async () => {
    for (const size of [3, 1000]) {
      const items = await parseAll(pieces(`[${RECORDS.join(',\n')}]`, size), { format: 'json' });
      expect(items.map((i) => ('record' in i ? i.record : i))).toEqual(EXPECTED);
    }
  });

  it('with bigIntegers: bigint both formats give them as bigints (the import: still numbers), nested too', async () => {
    const asBigints = [
      { id: 9007199254740993n, n: 1 },
      { id: 9007199254740992n, n: 2 },
      { id: 1100000000000000001n, ref: { ids: [-9007199254740995n, 7] }, s: 'x,12345678901234567890' },
      EXPECTED[3],
    ];
    for (const [format, text] of [['ndjson', `${RECORDS.join('\n')}\n`], ['json', `[${RECORDS.join(',\n')}]`]] as const) {
      const items = await parseAll(pieces(text, 7), { format, bigIntegers: 'bigint' });
      expect(items.map((i) => ('record' in i ? i.record : i)), format).toEqual(asBigints);
    }
  });

  it('an NDJSON line with a long integer that is not valid JSON stays unparseable at its line', async () => {
    const items = await parseAll(['{"id":9007199254740993,}\n{"id":9007199254740993}\n'], { format: 'ndjson' });
    expect(items[0]).toMatchObject({ unparseable: { expected: 'one JSON object per line' }, position: { line: 1 } });
    expect(items[1]).toMatchObject({ record: { id: '9007199254740993' }, position: { line: 2 } });
  });
});
