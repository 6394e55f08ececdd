import { describe, expect, it } from 'vitest';
import { SIBLINGS_UNKNOWN, SharedIdHashes, postSlotOf, withSlotSiblings } from '../../src/transform/mattermost/post-keys.js';

/** Posts as [time, slot, id]. */
type Post = [number, string, string];
const crowdedOf = (...slots: string[]) => {
  const hashes = new SharedIdHashes();
  for (const slot of [...slots, ...slots]) hashes.note(slot);
  return hashes.shared();
};
const siblingsOf = (posts: Post[], crowded: ReadonlySet<number>) => [...withSlotSiblings(posts, crowded, ([time, slot, id]) => ({ time, slot, id: () => id }))].map(([post, siblings]) => [post[2], siblings]);

describe('a Mattermost post slot (channel, time, author)', () => {
  it('is the id without its text hash, for root post ids only', () => {
    expect(postSlotOf('acme/ops/1700000000000/ana/0a1b2c3d')).toBe('acme/ops/1700000000000/ana');
    expect(postSlotOf('dm/ana,bo/1700000000000/bo/0a1b2c3d')).toBe('dm/ana,bo/1700000000000/bo');
    expect(postSlotOf('acme/ops/1700000000000/ana/0a1b2c3d/in/12345678')).toBeUndefined();
  });

  it("gives each post of a crowded slot its slot's ids in order, one array per slot, a duplicate once", () => {
    const posts: Post[] = [[1, 's1', 'a'], [1, 's2', 'x'], [1, 's1', 'b'], [1, 's1', 'a'], [2, 's1', 'c']];
    const found = siblingsOf(posts, crowdedOf('s1'));
    expect(found).toEqual([['a', ['a', 'b']], ['x', undefined], ['b', ['a', 'b']], ['a', ['a', 'b']], ['c', ['c']]]);
    expect(found[0]![1]).toBe(found[2]![1]);
    expect(siblingsOf(posts, new Set())).toEqual(posts.map(([, , id]) => [id, undefined]));
  });

  it('gives up on a millisecond of more than 10,000 posts (siblings unknown), and takes the next one up again', () => {
    const posts: Post[] = [...Array.from({ length: 10_001 }, (_, i): Post => [1, 's1', `p${i}`]), [2, 's1', 'q1'], [2, 's1', 'q2']];
    const found = siblingsOf(posts, crowdedOf('s1'));
    expect(found.slice(0, 10_001).every(([, siblings]) => siblings === SIBLINGS_UNKNOWN)).toBe(true);
    expect(found.slice(10_001)).toEqual([['q1', ['q1', 'q2']], ['q2', ['q1', 'q2']]]);
  });
});
