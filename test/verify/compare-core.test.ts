import { describe, expect, it } from 'vitest';
import { align, forEachMatch } from '../../src/pipeline/verify/align.js';
import { compareMessages } from '../../src/pipeline/verify/compare-messages.js';
import { compareMembers, compareUsers, matchChannels, type PlatformChannel } from '../../src/pipeline/verify/compare-records.js';
import { ExpectedReplies } from '../../src/pipeline/verify/expected-replies.js';
import { KeyHashSet, MessageIdSet } from '../../src/pipeline/verify/key-set.js';
import { ExpectedMessages, Interner, PlatformMessages } from '../../src/pipeline/verify/message-columns.js';

/** Builds both sides from strings: each character is a message (author = the character, length 1). */
function sides(expected: Record<string, string>, platform: Record<string, string>) {
  const authors = new Interner();
  const types = new Interner();
  const e = new Map<string, ExpectedMessages>();
  const p = new Map<string, PlatformMessages>();
  let ordinal = 0;
  let id = 100n;
  for (const [key, text] of Object.entries(expected)) {
    const col = new ExpectedMessages();
    for (const ch of text) col.push({ author: authors.id(ch.toLowerCase()), type: types.id('TEXT'), length: ch === ch.toUpperCase() ? 2 : 1 }, ordinal++);
    e.set(key, col);
  }
  for (const [key, text] of Object.entries(platform)) {
    const col = new PlatformMessages();
    for (const ch of text) col.push({ author: authors.id(ch.toLowerCase()), type: types.id('TEXT'), length: ch === ch.toUpperCase() ? 2 : 1 }, id++, false);
    p.set(key, col);
  }
  return { expected: e, platform: p, authors, types };
}

const brief = (f: { kind: string; channelKey: string; ordinal?: number; foundIn?: string }) => `${f.kind}:${f.channelKey}:${f.ordinal ?? '-'}${f.foundIn ? `>${f.foundIn}` : ''}`;

describe('align', () => {
  it('finds a shortest script (checked against LCS length) and its matches are in order', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: rand(12) }, () => rand(3));
      const b = Array.from({ length: rand(12) }, () => rand(3));
      const { ops, shortest } = align(a.length, b.length, (i, j) => a[i] === b[j]);
      expect(shortest).toBe(true);
      const lcs = lcsLength(a, b);
      expect(ops.length).toBe(a.length + b.length - 2 * lcs);
      const pairs: Array<[number, number]> = [];
      forEachMatch(ops, a.length, b.length, (i, j) => pairs.push([i, j]));
      expect(pairs.length).toBe(lcs);
      for (const [i, j] of pairs) expect(a[i]).toBe(b[j]);
    }
  });

  it('falls back to the look-ahead merge past the work budget, still exact for scattered differences', () => {
    const a = Array.from({ length: 1000 }, (_, i) => i);
    const b = a.filter((i) => i !== 10 && i !== 500);
    const { ops, shortest } = align(a.length, b.length, (i, j) => a[i] === b[j], { maxWork: 10 });
    expect(shortest).toBe(false);
    expect([...ops]).toEqual([{ op: 'del', i: 10 }, { op: 'del', i: 500 }]);
  });
});

describe('compareMessages', () => {
  it('exact sides give no findings and count every message verified', () => {
    const r = compareMessages(sides({ c0: 'abc', c1: 'de' }, { c0: 'abc', c1: 'de' }));
    expect([...r.findings()]).toEqual([]);
    expect(r.verified).toBe(5);
    expect(r.regions).toEqual([]);
  });

  it('pairs a changed message with the source message it differs from least, not the first of its hunk', () => {
    // b was deleted and c's body length changed (C): c is the changed one, b the missing one.
    const r = compareMessages(sides({ c0: 'abc' }, { c0: 'aC' }));
    expect([...r.findings()].map(brief).sort()).toEqual(['changed:c0:2', 'missing:c0:1']);
    expect([...r.findings()].find((f) => f.kind === 'changed')!.fields).toEqual(['body']);
  });

  it('classifies missing, extra, misplaced, out of order and changed', () => {
    // c0: b missing (ordinal 1); c1: x extra; d moved from c0 to c1 (misplaced); c2: g and h swapped (out of order);
    // c3: k's body length changed (K).
    const r = compareMessages(sides({ c0: 'abcd', c1: 'ef', c2: 'ghi', c3: 'jkl' }, { c0: 'ac', c1: 'exfd', c2: 'hgi', c3: 'jKl' }));
    expect([...r.findings()].map(brief).sort()).toEqual(['changed:c3:10', 'extra:c1:-', 'misplaced:c0:3>c1', 'missing:c0:1', 'out-of-order:c2:6'].sort());
    expect([...r.findings()].find((f) => f.kind === 'changed')!.fields).toEqual(['body']);
  });

  it('a channel only the platform has (an extra channel of the pipeline) gives extras; one it lacks, missing', () => {
    const r = compareMessages(sides({ c0: 'ab' }, { c9: 'z' }));
    expect([...r.findings()].map(brief).sort()).toEqual(['extra:c9:-', 'missing:c0:0', 'missing:c0:1']);
  });

  it('widens a difference over equal neighbours into one region, so content can tell which one is gone', () => {
    const r = compareMessages(sides({ c0: 'zaaaaz' }, { c0: 'zaaaz' }));
    expect(r.regions).toEqual([{ channelKey: 'c0', ordinals: Uint32Array.from([1, 2, 3, 4]), platformIds: BigInt64Array.from([101n, 102n, 103n]), matchedInside: 3 }]);
  });

  it('tells the platform ids aligned with wanted ordinals, and edited ones', () => {
    const s = sides({ c0: 'ab' }, { c0: 'ab' });
    s.platform.get('c0')!.edited[1] = 1;
    const r = compareMessages(s, new Set([0]));
    expect(r.matched.get(0)).toEqual({ channelKey: 'c0', platformId: 100n });
    expect(r.edited).toEqual([{ channelKey: 'c0', ordinal: 1, platformId: 101n }]);
  });
});

describe('users, channels, members', () => {
  const at = (line: number) => ({ file: 'users.csv', line, index: line - 2 });
  it('users: missing, changed fields (chatport properties ignored), extras only with this pipeline id', () => {
    const { differences, verified } = compareUsers(
      [
        { sourceKey: 'u0', position: at(2), item: { name: 'ann', displayName: 'Ann', isGuest: false, properties: { dept: 'x' } } },
        { sourceKey: 'u1', position: at(3), item: { name: 'ben', displayName: 'Ben', isGuest: false, properties: {} } },
        { sourceKey: 'u2', position: at(4), item: { name: 'cid', displayName: 'Cid', isGuest: false, properties: {} } },
      ],
      [
        { id: '1', name: 'ann', displayName: 'Ann', isGuest: false, properties: { dept: 'x', chatportPipeline: 'p', chatportKey: 'u0' } },
        { id: '2', name: 'ben', displayName: 'Benjamin', isGuest: true, properties: {} },
        { id: '3', name: 'zed', properties: { chatportPipeline: 'p' } },
        { id: '4', name: 'other', properties: { chatportPipeline: 'q' } },
      ],
      'p',
    );
    expect(verified).toBe(1);
    expect(differences.map((d) => [d.kind, d.sourceKey, d.fields, d.platformId])).toEqual([
      ['changed', 'u1', ['displayName', 'isGuest'], '2'],
      ['missing', 'u2', undefined, undefined],
      ['extra', undefined, undefined, '3'],
    ]);
  });

  it('channels: owned before legacy, legacy by name, several candidates held twice (the run state\'s, the named, else the first), DIRECT by members', () => {
    const ch = (id: string, key: string | undefined, name: string, pipeline?: string, type = 'PUBLIC', members?: string[]): PlatformChannel => ({
      id, type, name, ...(members ? { members } : {}),
      properties: { ...(key ? { chatportKey: key } : {}), ...(pipeline ? { chatportPipeline: pipeline } : {}) },
    });
    const expected = new Map(
      [
        ['c0', { type: 'PUBLIC', name: 'a', members: [] }],
        ['c1', { type: 'PUBLIC', name: 'b', members: [] }],
        ['c2', { type: 'PUBLIC', name: 'c', members: [] }],
        ['d0', { type: 'DIRECT', members: ['x', 'y'] }],
      ].map(([key, item], i) => [key as string, { sourceKey: key as string, position: { file: 'channels.csv', index: i }, item: item as { type: string; members: string[] } }]),
    );
    const m = matchChannels(
      expected,
      [ch('1', 'c0', 'a', 'other'), ch('2', 'c0', 'a', 'p'), ch('3', 'c1', 'b'), ch('4', 'c1', 'b-elsewhere'), ch('5', 'c2', 'c', 'p'), ch('6', 'c2', 'c2', 'p'), ch('7', undefined, 'dm', undefined, 'DIRECT', ['y', 'x']), ch('8', 'c9', 'n', 'p')],
      'p',
    );
    expect(m.byKey.get('c0')!.id).toBe('2');
    expect(m.byKey.get('c1')!.id).toBe('3');
    expect(m.byKey.get('c2')!.id).toBe('5');
    expect(m.heldTwice.get('c2')).toMatchObject({ compared: { id: '5' }, copies: [{ id: '6' }], because: 'name' });
    expect(m.byKey.get('d0')!.id).toBe('7');
    expect(m.extras.map((c) => c.id)).toEqual(['8']);
    const platform = [ch('16', 'c2', 'x', 'p'), ch('6', 'c2', 'y', 'p')];
    expect(matchChannels(expected, platform, 'p').heldTwice.get('c2')).toMatchObject({ compared: { id: '6' }, copies: [{ id: '16' }], because: 'first' });
    expect(matchChannels(expected, platform, 'p', undefined, new Map([['c2', '16']])).heldTwice.get('c2')).toMatchObject({ compared: { id: '16' }, because: 'run' });
  });

  it('members: missing and extra per channel', () => {
    const pos = { file: 'members.csv', line: 2, index: 0 };
    const { differences, verified } = compareMembers(new Map([['c0', new Map([['ann', { sourceKey: 'c0|ann', position: pos }], ['ben', { sourceKey: 'c0|ben', position: pos }]])]]), new Map([['c0', new Set(['ann', 'cid'])]]));
    expect(verified).toBe(1);
    expect(differences.map((d) => [d.kind, d.sourceKey])).toEqual([['missing', 'c0|ben'], ['extra', 'c0/cid']]);
  });
});

describe('KeyHashSet', () => {
  it('tells keys seen before, through growth', () => {
    const set = new KeyHashSet();
    for (let i = 0; i < 20_000; i++) expect(set.add(`k${i}`)).toBe(true);
    for (let i = 0; i < 20_000; i += 997) expect(set.add(`k${i}`)).toBe(false);
    expect(set.size).toBe(20_000);
  });
});

describe('MessageIdSet', () => {
  it('holds int64 ids exactly, out of order and at the ends of the range; any other text as text', () => {
    const set = new MessageIdSet();
    const ids = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '5', '0', '00', 'abc', '9223372036854775808'];
    for (const id of [...ids].reverse()) set.add(id);
    for (const id of ids) expect(set.has(id)).toBe(true);
    // Neighbours beyond 2^53 are told apart; the same number written another way is another id, as with text.
    for (const id of ['9007199254740992', '9223372036854775806', '6', '05', '-0', '-5', 'abd', '9223372036854775809']) expect(set.has(id)).toBe(false);
    expect(set.size).toBe(ids.length);
  });
});

describe('ExpectedReplies', () => {
  it('groups replies by their root in the order roots first appear, source order within each; keeps token, channel and ordinal', () => {
    const replies = new ExpectedReplies();
    const add = (parent: string, key: string, ordinal: number) => replies.push({ parent, key, channelKey: `c-${parent}`, token: { author: ordinal, type: 1, length: key.length }, ordinal });
    add('r2', 'a', 3);
    add('r1', 'b', 4);
    add('r2', 'c', 7);
    add('r3', 'd', 8);
    add('r1', 'e', 9);
    for (let i = 0; i < 40; i++) add('r4', `k${i}`, 10 + i); // through growth
    const groups = replies.byParent().map((g) => [g.parent, [...g.replies].map((i) => replies.ordinal[i])]);
    expect(groups.slice(0, 3)).toEqual([['r2', [3, 7]], ['r1', [4, 9]], ['r3', [8]]]);
    expect(groups[3]).toEqual(['r4', Array.from({ length: 40 }, (_, i) => 10 + i)]);
    expect(replies.channelKeyOf(1)).toBe('c-r1');
    expect(replies.token(2)).toEqual({ author: 7, type: 1, length: 1 });
  });

  it('takes a reply to a reply of its channel to the root its chain starts from; a ring, and what hangs from it, has none', () => {
    const replies = new ExpectedReplies();
    const add = (key: string, parent: string, channelKey = 'c1') => replies.push({ parent, key, channelKey, token: { author: 1, type: 1, length: 1 }, ordinal: replies.count });
    add('a2', 'r'); // 0: r's thread
    add('a3', 'a2'); // 1: through a2
    add('b2', 'b1'); // 2: b1 listed later, a reply to zz
    add('b1', 'zz'); // 3
    add('x', 'y'); // 4: a ring x → y → x
    add('y', 'x'); // 5
    add('t', 'y'); // 6: hangs from the ring
    add('o', 'a3', 'c2'); // 7: a3 is a reply of another channel: o's root is a3 itself
    const roots = replies.threadRoots();
    expect([...roots].map((p) => (p < 0 ? null : replies.parents.name(p)))).toEqual(['r', 'r', 'zz', 'zz', null, null, null, 'a3']);
    expect(replies.byParent(roots).map((g) => [g.parent, g.channelKey, [...g.replies]])).toEqual([['r', 'c1', [0, 1]], ['zz', 'c1', [2, 3]], ['a3', 'c2', [7]]]);
  });
});

function lcsLength(a: number[], b: number[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) dp[i]![j] = a[i - 1] === b[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
  return dp[a.length]![b.length]!;
}
