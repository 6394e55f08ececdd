import { describe, expect, it } from 'vitest';
import { makeValidName, mapSlackUsers, type KeyFor } from '../../src/transform/slack/index.js';
import { UserImportItem } from '../../src/wire/imports.js';
import { contextOf, sourceOf } from './helpers/hand-made.js';

const person = (id: string, name: string, profile: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ id, team_id: 'T1', name, profile, ...extra });

describe('users', () => {
  const users = [
    person('U1', 'ana', { display_name: 'Ana D', real_name: 'Ana Real', email: 'ana@x.invalid', title: 'Chef', image_24: 'small.png', image_512: 'big.png' }, { tz: 'Europe/Paris', tz_label: 'CET', tz_offset: 3600, is_admin: true, color: 'abc' }),
    person('U2', 'bo', { display_name: '', real_name: 'Bo Real' }),
    person('U3', 'cy', { display_name: ' ', real_name: '' }),
    person('U4', 'Dee Dee!', {}, { is_restricted: true }),
    person('U5', 'dee-dee', {}, { is_restricted: true, is_ultra_restricted: true }),
    person('U6', 'ana', {}, { deleted: true }),
    person('U7', 'buildbot', { bot_id: 'B1', real_name: 'Build Bot' }, { is_bot: true }),
    person('U8', 'helper', {}, { is_app_user: true }),
    { name: 'no-id' },
    person('U1', 'ana-again'),
  ];
  const days = {
    C1: {
      '2020-01-01': [
        { type: 'message', ts: '1.000001', user: 'U1', text: 'hi' },
        { type: 'message', ts: '2.000001', user: 'UX1', text: 'a stranger', user_profile: { name: 'guest.person', real_name: 'Guest Person', display_name: 'GP' } },
        { type: 'message', ts: '3.000001', subtype: 'bot_message', bot_id: 'B1', text: 'build ok' },
        { type: 'message', ts: '4.000001', subtype: 'bot_message', bot_id: 'B9', username: 'deploybot', text: 'deployed' },
        { type: 'message', ts: '5.000001', subtype: 'bot_message', username: 'old hook', text: 'legacy' },
      ],
    },
  };
  const channels = [{ id: 'C1', name: 'general', members: ['U1', 'UX2'], creator: 'UX3' }];
  const keyFor: KeyFor = (stage, key) => `test:${stage}:${key}`;
  const context = contextOf({ users, channels, days }, { keyFor });
  const items = [...mapSlackUsers(context)];
  const byName = new Map(items.map((u) => [u.name, u]));

  it('every item is valid for the import', () => {
    for (const item of items) expect(UserImportItem.safeParse(item).success, item.name).toBe(true);
  });

  it('names are the handles made valid and unique, in users.json order', () => {
    expect(items.slice(0, 8).map((u) => u.name)).toEqual(['ana', 'bo', 'cy', 'dee-dee', 'dee-dee-2', 'ana-2', 'buildbot', 'helper']);
  });

  it('display names: display_name, then real_name, then the handle', () => {
    expect(byName.get('ana')!.displayName).toBe('Ana D');
    expect(byName.get('bo')!.displayName).toBe('Bo Real');
    expect(byName.get('cy')!.displayName).toBe('cy');
  });

  it('restricted and ultra-restricted members are guests', () => {
    expect(items.filter((u) => u.isGuest).map((u) => u.name)).toEqual(['dee-dee', 'dee-dee-2']);
    expect(sourceOf(byName.get('dee-dee-2')!).guest).toBe('ultra_restricted');
  });

  it('keeps the source facts under properties.source', () => {
    expect(sourceOf(byName.get('ana')!)).toEqual({
      system: 'slack',
      kind: 'user',
      id: 'U1',
      workspace: 'T1',
      handle: 'ana',
      userKind: 'person',
      deleted: false,
      roles: ['admin'],
      realName: 'Ana Real',
      displayName: 'Ana D',
      email: 'ana@x.invalid',
      title: 'Chef',
      timeZone: { name: 'Europe/Paris', label: 'CET', offsetSeconds: 3600 },
      extra: { color: 'abc', profile: { image_512: 'big.png' } },
    });
  });

  it('deleted users are imported and marked; bots and apps carry their kind', () => {
    expect(sourceOf(byName.get('ana-2')!)).toMatchObject({ id: 'U6', deleted: true });
    expect(sourceOf(byName.get('buildbot')!)).toMatchObject({ userKind: 'bot', botId: 'B1' });
    expect(sourceOf(byName.get('helper')!)).toMatchObject({ userKind: 'app' });
  });

  it('adds placeholders for senders, bots, members and creators users.json lacks, sorted by id', () => {
    const placeholders = items.filter((u) => sourceOf(u).userKind === 'placeholder');
    expect(placeholders.map((u) => [sourceOf(u).id, u.name, u.displayName])).toEqual([
      ['B9', 'deploybot', 'deploybot'],
      ['UX1', 'guest.person', 'GP'],
      ['UX2', 'unknown-ux2', 'unknown-ux2'],
      ['UX3', 'unknown-ux3', 'unknown-ux3'],
      ['integration:old hook', 'old-hook', 'old hook'],
    ]);
    expect(sourceOf(placeholders[1]!)).toMatchObject({ placeholder: { reason: 'sends messages but is not in users.json', firstSeenIn: 'C1/2020-01-01.json#1' } });
    expect(sourceOf(placeholders[2]!)).toMatchObject({ placeholder: { reason: 'listed in a conversation but not in users.json' } });
  });

  it('a bot whose user is in users.json gets no placeholder', () => {
    expect(items.some((u) => sourceOf(u).id === 'B1')).toBe(false);
  });

  it('idempotency keys come from keyFor with team and user id', () => {
    expect(byName.get('ana')!.idempotencyKey).toBe('test:users:T1/U1');
    expect(byName.get('deploybot')!.idempotencyKey).toBe('test:users:T1/B9');
  });

  it('rejects records without an id and repeated ids, as data', () => {
    expect(context.directory.rejected.map((r) => [r.position.index, r.problem.field])).toEqual([
      [8, 'id'],
      [9, 'id'],
    ]);
  });

  it('mapping is deterministic', () => {
    expect([...mapSlackUsers(contextOf({ users, channels, days }, { keyFor }))]).toEqual(items);
  });
});

describe('null in users.json (Slack writes null for some optional fields)', () => {
  const nulls = { real_name: null, display_name: null, email: null, title: null, bot_id: null };
  const users = [
    person('U1', 'nul', nulls, { real_name: 'Top Real', team_id: null, deleted: null, is_bot: null, tz_label: null, tz_offset: null }),
    person('U2', 'nul2', { ...nulls, display_name: 'Shown' }, { real_name: null }),
    { id: 'U3', team_id: 'T1', name: null, profile: null },
    { id: null, team_id: 'T1', name: 'no-id' },
  ];
  const context = contextOf({ users }, { keyFor: (stage, key) => `${stage}:${key}` });
  const byId = new Map([...mapSlackUsers(context)].map((u) => [sourceOf(u).id, u]));

  it('reads an optional field holding null as absent, falling back as for an absent one', () => {
    expect(context.directory.rejected.map((r) => [r.position.index, r.problem.field])).toEqual([[3, 'id']]);
    expect(byId.get('U1')).toMatchObject({ name: 'nul', displayName: 'Top Real', isGuest: false });
    expect(sourceOf(byId.get('U1')!)).toMatchObject({ realName: 'Top Real', workspace: 'T1', deleted: false });
    expect(sourceOf(byId.get('U1')!)).not.toHaveProperty('email');
    expect(byId.get('U2')!.displayName).toBe('Shown');
    expect(byId.get('U3')).toMatchObject({ name: 'user-u3', displayName: 'user-u3' });
    for (const item of byId.values()) expect(UserImportItem.safeParse(item).success).toBe(true);
  });

  it('still rejects a required field holding null, naming it', () => {
    expect(context.directory.rejected[0]!.problem).toMatchObject({ field: 'id' });
    expect(context.directory.rejected[0]!.problem.reason).toMatch(/string/);
  });
});

describe('makeValidName', () => {
  it.each([
    ['ana.b_c-d', 'ana.b_c-d'],
    ['Zoë Tavmir!', 'zoë-tavmir'],
    ['  --weird--  ', 'weird'],
    ['☕☕', 'fallback'],
    ['', 'fallback'],
    ['x'.repeat(300), 'x'.repeat(128)],
  ])('%s → %s', (input, expected) => {
    expect(makeValidName(input, 'fallback')).toBe(expected);
  });
});
