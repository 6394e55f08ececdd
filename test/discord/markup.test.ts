import { describe, expect, it } from 'vitest';
import { discordToText, mentionedIds } from '../../src/transform/discord/index.js';

const names = { user: (id: string) => ({ '1': 'alice', '22': 'bob-2' })[id], channel: (id: string) => ({ '9': 'general' })[id] };

describe('Discord markup as readable text', () => {
  it('names users and channels as imported, roles by id, custom emoji by name, timestamps as UTC', () => {
    expect(discordToText('hi <@1> and <@!22> in <#9> <@&5> <:party:123> <a:dance:456> at <t:1700000000:R> and <t:1700000000>', names)).toBe(
      'hi @alice and @bob-2 in #general @role:5 :party: :dance: at 2023-11-14T22:13:20.000Z and 2023-11-14T22:13:20.000Z',
    );
  });
  it('says which id it could not name, and leaves text that is not a token alone', () => {
    expect(discordToText('<@404> <#405> 1 < 2 > 0 **bold** @already-rendered', names)).toBe('@unknown-user:404 #unknown-channel:405 1 < 2 > 0 **bold** @already-rendered');
  });
  it('lists the ids mentioned, each once', () => {
    expect(mentionedIds('<@1> <@!1> <#9> <@&5> <@22>')).toEqual({ users: ['1', '22'], channels: ['9'], roles: ['5'] });
  });
});
