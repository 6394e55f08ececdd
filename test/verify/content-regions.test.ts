import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { classifyContentRegions } from '../../src/pipeline/verify/content-regions.js';
import type { SourceMessage } from '../../src/pipeline/verify/source-messages.js';

const source = (ordinal: number, user: string, body: string, properties?: object) => ({
  ordinal,
  message: { sourceKey: `m${ordinal}`, position: { file: 'messages.csv', line: ordinal + 1, index: ordinal }, channelKey: 'c0', item: { type: 'TEXT', user, body, ...(properties ? { properties } : {}) } } satisfies SourceMessage,
});
const held = (id: number, user: string | undefined, body: string, properties?: object) =>
  ({ id, type: 'TEXT', channelId: 1, body, ...(user ? { user: { id: 1, name: user } } : {}), ...(properties ? { properties } : {}) }) as unknown as Message;

describe('messages read in full (classifyContentRegions)', () => {
  it('pairs the platform message with the source message it still mostly is, not the first of the hunk', () => {
    // m1 was deleted; m2 lost its sender (its user was deleted): the platform holds m0, m2 without a user, m3.
    const region = { channelKey: 'c0', source: [source(0, 'ann', 'hello'), source(1, 'bob', 'gone now'), source(2, 'cy', 'still here'), source(3, 'ann', 'bye')], platform: [held(10, 'ann', 'hello'), held(12, undefined, 'still here'), held(13, 'ann', 'bye')] };
    const { findings, verified } = classifyContentRegions([region]);
    expect(verified).toBe(2);
    expect(findings).toEqual([
      { kind: 'changed', channelKey: 'c0', ordinal: 2, platformId: 12n, fields: ['user'] },
      { kind: 'missing', channelKey: 'c0', ordinal: 1 },
    ]);
  });

  it('finds a moved message among extras of the same author and text by its properties too', () => {
    // m1 and m2 both say "hello" from ann; m1's properties were edited, m2 was posted again at the end.
    const region = { channelKey: 'c0', source: [source(1, 'ann', 'hello', { n: 1 }), source(2, 'ann', 'hello', { n: 2 })], platform: [held(11, 'ann', 'hello', { n: 9 })] };
    const end = { channelKey: 'c0', source: [], platform: [held(12, 'ann', 'hello', { n: 2 })] };
    const { findings } = classifyContentRegions([region, end]);
    expect(findings).toEqual([
      { kind: 'out-of-order', channelKey: 'c0', ordinal: 2, platformId: 12n },
      { kind: 'changed', channelKey: 'c0', ordinal: 1, platformId: 11n, fields: ['properties'] },
    ]);
  });
});
