import { describe, expect, it } from 'vitest';
import { directChannelId, mattermostToText, postId } from '../../src/transform/mattermost/index.js';

const names = {
  user: (u: string) => ({ 'ann.lee': 'ann.lee', zoe: 'zoe-2' })[u],
  channel: (team: string | undefined, c: string) => (team === 'eng' ? ({ dev: 'dev', 'town-square': 'town-square' })[c] : undefined),
};

describe('Mattermost text as readable text', () => {
  it('renames mentioned users and links channels by their platform names; @channel, emails and unknown names stay', () => {
    expect(mattermostToText('@ann.lee, see ~dev. @zoe! @channel mail ann.lee@example.invalid @nobody ~nowhere', 'eng', names)).toEqual({
      text: '@ann.lee, see #dev. @zoe-2! @channel mail ann.lee@example.invalid @nobody ~nowhere',
      mentioned: ['ann.lee', 'zoe'],
    });
  });
  it('leaves channel links alone in a direct conversation (no team)', () => {
    expect(mattermostToText('~dev', undefined, names).text).toBe('~dev');
  });
  it('gives a post an id from its channel, time, author and text; a direct channel one from its members', () => {
    expect(postId('eng/dev', { user: 'ann', message: 'hi', create_at: 5 })).toMatch(/^eng\/dev\/5\/ann\/[0-9a-f]{8}$/);
    expect(postId('eng/dev', { user: 'ann', message: 'hi', create_at: 5 })).not.toBe(postId('eng/dev', { user: 'ann', message: 'ho', create_at: 5 }));
    expect(directChannelId(['b', 'a', 'b'])).toBe('dm/a,b');
  });
});
