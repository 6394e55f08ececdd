import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../src/shared/lossless-json.js';
import { Chunker } from '../../src/transform/chunker.js';

describe('Chunker with int64 ids beyond 2^53', () => {
  it('writes a bigint channelId as exact JSON digits (not a string), and the chunk reads back the same', () => {
    const chunker = new Chunker<number>({ maxRecords: 3, maxBytes: 10_000 });
    const items = [
      { type: 'TEXT', channelId: 9007199254740993n, body: 'a', user: 'u' },
      { type: 'TEXT', channelId: 42, body: 'b', user: 'u' },
      { type: 'TEXT', channelId: 9223372036854775807n, body: 'c 12345678901234567890', user: 'u' },
    ];
    const done = items.flatMap((item, i) => chunker.add(item, i, 0) as ReturnType<Chunker<number>['finish']>);
    expect(done).toHaveLength(1);
    const text = done[0]!.bytes.toString('utf8');
    expect(text).toBe(
      '[{"type":"TEXT","channelId":9007199254740993,"body":"a","user":"u"},{"type":"TEXT","channelId":42,"body":"b","user":"u"},' +
        '{"type":"TEXT","channelId":9223372036854775807,"body":"c 12345678901234567890","user":"u"}]',
    );
    expect(parseJsonExact(text, 'bigint')).toEqual(items);
  });
});
