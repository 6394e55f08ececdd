import { describe, expect, it } from 'vitest';
import { mapSlackChannels, mapSlackMembers, resolveMemberChannel } from '../../src/transform/slack/index.js';
import { ChannelImportItem, MemberImportItem } from '../../src/wire/imports.js';
import { contextOf, sourceOf } from './helpers/hand-made.js';

const users = Array.from({ length: 14 }, (_, i) => ({ id: `U${i + 1}`, team_id: 'T1', name: `user${i + 1}` }));
const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `U${i + from}`);

const input = {
  users,
  channels: [
    { id: 'C1', name: 'general', created: 1600000000, creator: 'U1', is_general: true, members: ['U1', 'U2', 'U2', 'U3'], topic: { value: 'Topic!', creator: 'U1', last_set: 1600000100 }, purpose: { value: '', creator: '', last_set: 0 }, pins: [{ id: '1' }] },
    { id: 'C2', name: 'old', is_archived: true, members: ['U1'], creator: 'U1' },
    { id: 'C3', name: 'café-☕', members: [] },
  ],
  groups: [{ id: 'G1', name: 'General', members: ['U1', 'U4'], purpose: { value: 'secret', creator: 'U4', last_set: 1600000200 } }],
  dms: [
    { id: 'D1', created: 1600000000, members: ['U1', 'U2'] },
    { id: 'D2', members: ['U3'] }, // a self-DM: too few members for DIRECT
    { id: 'D3', members: ['U2', 'U1'] }, // the same people as D1
  ],
  mpims: [
    { id: 'G9', name: 'mpdm-user1--user2--user3-1', creator: 'U1', members: ids(3) },
    { id: 'G10', name: 'mpdm-many-1', creator: 'U1', members: ids(12) },
    { id: 'G11', name: 'mpdm-ten-1', members: ids(10, 5) },
  ],
};
const context = contextOf(input);
const planned = [...mapSlackChannels(context)];
const byKey = new Map(planned.map((p) => [p.channelKey, p.item]));

describe('channels', () => {
  it('every item is valid for the import', () => {
    for (const { item } of planned) expect(ChannelImportItem.safeParse(item).success, JSON.stringify(item)).toBe(true);
  });

  it('types: channels PUBLIC, groups PRIVATE, dms DIRECT, mpims DIRECT up to 10 members else PRIVATE', () => {
    expect(Object.fromEntries(planned.map((p) => [p.channelKey, p.item.type]))).toEqual({
      C1: 'PUBLIC',
      C2: 'PUBLIC',
      C3: 'PUBLIC',
      G1: 'PRIVATE',
      G9: 'DIRECT',
      G10: 'PRIVATE',
      G11: 'DIRECT',
      D1: 'DIRECT',
      D2: 'PRIVATE',
      D3: 'PRIVATE',
    });
    expect(sourceOf(byKey.get('G10')!).typeChange).toEqual({ from: 'DIRECT', to: 'PRIVATE', reason: '12 members; a DIRECT channel has 2 to 10' });
    expect(sourceOf(byKey.get('D3')!).typeChange).toMatchObject({ reason: 'another direct conversation has the same members' });
  });

  it('names are valid and unique; display names keep the Slack name', () => {
    expect(planned.map((p) => p.item.name)).toEqual(['general', 'old', 'café', 'general-2', undefined, 'mpdm-many-1', undefined, undefined, 'dm-user3', 'dm-user2-user1']);
    expect(byKey.get('G1')!.displayName).toBe('General');
    expect(byKey.get('C3')!.displayName).toBe('café-☕');
  });

  it('DIRECT channels carry their members; others get theirs through the members import', () => {
    expect(byKey.get('D1')!.members).toEqual(['user1', 'user2']);
    expect(byKey.get('G11')!.members).toHaveLength(10);
    expect(byKey.get('C1')!.members).toEqual([]);
    expect(byKey.get('D1')!.creator).toBeUndefined();
    expect(byKey.get('C1')!.creator).toBe('user1');
  });

  it('archived, topic, purpose and the rest of the record are kept in properties.source', () => {
    expect(sourceOf(byKey.get('C1')!)).toEqual({
      system: 'slack',
      kind: 'channel',
      id: 'C1',
      workspace: 'T1',
      conversationType: 'channel',
      name: 'general',
      created: '2020-09-13T12:26:40.000Z',
      creator: 'U1',
      archived: false,
      general: true,
      topic: { text: 'Topic!', setBy: 'U1', setAt: '2020-09-13T12:28:20.000Z' },
      memberIds: ['U1', 'U2', 'U3'],
      extra: { pins: [{ id: '1' }] },
    });
    expect(sourceOf(byKey.get('C2')!)).toMatchObject({ archived: true });
    expect(sourceOf(byKey.get('G1')!)).toMatchObject({ purpose: { text: 'secret', setBy: 'U4' }, conversationType: 'group' });
  });

  it('keys: team and channel id', () => {
    expect(byKey.get('C1')!.idempotencyKey).toBe('slack/channels/T1/C1');
  });
});

describe('members', () => {
  const members = [...mapSlackMembers(context)];

  it('one item per unique member of each PUBLIC and PRIVATE channel, none for DIRECT', () => {
    const byChannel = new Map<string, string[]>();
    for (const m of members) byChannel.set(m.channelKey, [...(byChannel.get(m.channelKey) ?? []), m.item.username]);
    expect(Object.fromEntries(byChannel)).toEqual({
      C1: ['user1', 'user2', 'user3'],
      C2: ['user1'],
      G1: ['user1', 'user4'],
      G10: ids(12).map((id) => `user${id.slice(1)}`),
      D2: ['user3'],
      D3: ['user2', 'user1'],
    });
    for (const m of members) expect(MemberImportItem.safeParse(m.item).success).toBe(true);
    expect(members[0]!.item.idempotencyKey).toBe('slack/members/T1/C1/U1');
  });

  it('resolves the channel id from the pipeline map, or says why not', () => {
    const ids = new Map([['C1', 42]]);
    expect(resolveMemberChannel(members[0]!, ids)).toEqual({ ok: true, channelId: 42, item: members[0]!.item });
    expect(resolveMemberChannel(members[3]!, ids)).toEqual({ ok: false, reason: 'channel C2 has no platform id (it was not imported)' });
  });
});

describe('conversation records with null fields', () => {
  it('read a null topic, purpose or creator as absent and leave null members out, not rejecting the channel (and with it every message)', () => {
    const withNulls = contextOf({
      users,
      channels: [{ id: 'C7', name: 'nully', created: null, creator: null, members: ['U1', null, 'U2'], topic: null, purpose: { value: null, creator: 'U1', last_set: 0 } }],
    });
    expect(withNulls.directory.rejected).toEqual([]);
    const [channel] = [...mapSlackChannels(withNulls)];
    expect(channel!.item).toMatchObject({ type: 'PUBLIC', name: 'nully' });
    expect([...mapSlackMembers(withNulls)].map((m) => m.item.username)).toEqual(['user1', 'user2']);
    // The id is still required.
    expect(contextOf({ users, channels: [{ id: null, name: 'x' }] }).directory.rejected.map((r) => r.problem.field)).toEqual(['id']);
  });
});
