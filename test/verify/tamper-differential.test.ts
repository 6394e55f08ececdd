/**
 * Verification against a platform changed behind chatport's back: a messy import (messy-source.ts) that
 * verified exact, then seeded changes made over the API as another client would (a message deleted, edited
 * to another length or the same length, its properties edited, one posted, two moved; a user's and a
 * channel's display name changed, another channel's and another user's properties; a member removed,
 * another added; a channel deleted; a user deleted). `chatport verify` must name each change, as the kind docs/verify.md gives it, by the record's
 * source key, and nothing else. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, User } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, startImportFixture, type ImportFixture } from '../import/support.js';
import { diffSeeds, generateCase, writeCase, type Case } from '../import/messy-source.js';
import { byHand, type ByHand } from './by-hand.js';
import { rng } from '../helpers/rng.js';

let f: ImportFixture;
let hand: ByHand;
beforeAll(async () => {
  f = await startImportFixture();
  hand = await byHand(f.sandbox);
});
afterAll(async () => {
  await f.close();
});

/** A request as another client of the platform makes it; answers the parsed body, failing on any non-2xx. */
/** The difference verification must report: its kind, stage and the key it names. */
type Expected = `${string} ${string} ${string}`;

const sourceOf = (m: Message) => (m.properties as { source: { id: string; sentAt: string } }).source;
const keyOf = (properties: unknown) => (properties as { chatportKey: string }).chatportKey;

interface HeldChannel {
  id: bigint;
  key: string;
  members: string[];
  messages: Message[];
}

async function heldChannels(prefix: string): Promise<HeldChannel[]> {
  const held: HeldChannel[] = [];
  for (const channel of await all(f.client.channels.list())) {
    if (!channel.name?.startsWith(prefix)) continue;
    const members = (await all(f.client.channels.members(channel.id, { pageSize: 100 }))).map((u) => u.name);
    const messages = await all(f.client.channels.messages(channel.id, { pageSize: 100 }));
    held.push({ id: BigInt(channel.id), key: keyOf(channel.properties), members, messages });
  }
  return held.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** What one seed's changes work on, and what verification must name once they are made. */
interface Tampering {
  c: Case;
  pick: <T>(items: readonly T[]) => T;
  /** The case's channels with at least five messages (the first and last are changed), before any change. */
  channels: HeldChannel[];
  users: User[];
  expected: Set<Expected>;
  /** Users a change names (authors of changed or moved messages, members moved): a deleted user must be none of them. */
  named: Set<string>;
  /** Channels changed so far: the deleted channel must be none of them. */
  changedChannels: Set<string>;
}

/** Changes the platform behind chatport's back, one of each kind on distinct records; returns what verify must name. */
async function tamper(seed: number, c: Case): Promise<Expected[]> {
  const random = rng(seed * 7919);
  const channels = (await heldChannels(c.prefix)).filter((ch) => ch.messages.length >= 5);
  if (channels.length < 2) throw new Error(`seed ${seed}: too few channels with messages to tamper with`);
  const users = (await all(f.client.users.list())).filter((u) => u.name.startsWith(c.prefix));
  const t: Tampering = { c, pick: (items) => items[Math.floor(random() * items.length)]!, channels, users, expected: new Set(), named: new Set(), changedChannels: new Set() };
  await changeMessages(t);
  await changePeople(t);
  await deleteChannel(t, seed);
  await deleteUser(t);
  return [...t.expected].sort();
}

/** Messages: each change on another message; the ones whose place matters are not at either end of their channel. */
async function changeMessages(t: Tampering): Promise<void> {
  const [edited, other] = [t.channels[0]!, t.channels[t.channels.length - 1]!];
  t.changedChannels.add(edited.key).add(other.key);
  const inner = edited.messages.slice(1, -1);
  const [deleted, longer, sameLength, properties] = [inner[0]!, inner[inner.length - 1]!, edited.messages[0]!, other.messages[1]!];
  for (const m of [deleted, longer, sameLength, properties]) t.named.add(m.user!.name);
  await hand.call('DELETE', `/messages/${deleted.id}`);
  t.expected.add(`missing messages ${sourceOf(deleted).id}`);
  await hand.mergePatch(`/messages/${longer.id}`, { body: `${longer.body} (edited)` });
  t.expected.add(`changed messages ${sourceOf(longer).id}`);
  const body = sameLength.body!;
  await hand.mergePatch(`/messages/${sameLength.id}`, { body: `${body.slice(0, -1)}${body.endsWith('#') ? '%' : '#'}` });
  t.expected.add(`changed messages ${sourceOf(sameLength).id}`);
  await hand.mergePatch(`/messages/${properties.id}`, { properties: { source: { ...sourceOf(properties), sentAt: '1999-01-01T00:00:00.000Z' } } });
  t.expected.add(`changed messages ${sourceOf(properties).id}`);
  const poster = t.pick(other.members);
  t.named.add(poster);
  await hand.call('POST', `/channels/${other.id}/messages`, { type: 'TEXT', body: 'posted by someone else', user: { username: poster } });
  t.expected.add(`extra messages ${other.key}`);
  // Moved: deleted, then the same message posted again in another channel, or at the end of its own.
  const [moved, reordered] = [inner[1]!, other.messages[2]!];
  for (const [message, to] of [[moved, other], [reordered, other]] as const) {
    t.named.add(message.user!.name);
    await hand.call('DELETE', `/messages/${message.id}`);
    await hand.call('POST', `/channels/${to.id}/messages`, { type: message.type, body: message.body, user: { username: message.user!.name }, properties: message.properties });
  }
  t.expected.add(`misplaced messages ${sourceOf(moved).id}`).add(`out-of-order messages ${sourceOf(reordered).id}`);
}

/** Users and channels: a display name each, another channel's and another user's properties; members: one removed, one added. */
async function changePeople(t: Tampering): Promise<void> {
  const [user, propertied] = [t.users[0]!, t.users[1]!];
  t.named.add(user.name).add(propertied.name);
  await hand.mergePatch(`/users/${user.id}`, { displayName: `${user.displayName} (renamed)` });
  t.expected.add(`changed users ${keyOf(user.properties)}`);
  await hand.mergePatch(`/users/${propertied.id}`, { properties: { setByHand: true } });
  t.expected.add(`changed users ${keyOf(propertied.properties)}`);
  const channel = t.pick(t.channels);
  await hand.mergePatch(`/channels/${channel.id}`, { displayName: 'renamed by hand' });
  t.expected.add(`changed channels ${channel.key}`);
  const retopiced = channel === t.channels[0] ? t.channels[t.channels.length - 1]! : t.channels[0]!;
  await hand.mergePatch(`/channels/${retopiced.id}`, { properties: { topic: 'set by hand' } });
  t.expected.add(`changed channels ${retopiced.key}`);
  t.changedChannels.add(channel.key);
  const leaving = t.pick(channel.members);
  t.named.add(leaving);
  await hand.call('DELETE', `/channels/${channel.id}/members/${t.users.find((u) => u.name === leaving)!.id}`);
  t.expected.add(`missing members ${memberKey(t.c, channel.key, leaving)}`);
  const joining = t.users.find((u) => !channel.members.includes(u.name));
  if (joining) {
    t.named.add(joining.name);
    await hand.call('POST', `/channels/${channel.id}/members`, { username: joining.name });
    t.expected.add(`extra members ${channel.key}/${joining.name}`);
  }
}

/** A whole channel deleted: it, its members and its messages are missing. */
async function deleteChannel(t: Tampering, seed: number): Promise<void> {
  const gone = (await heldChannels(t.c.prefix)).find((ch) => !t.changedChannels.has(ch.key));
  if (!gone) throw new Error(`seed ${seed}: no fourth channel to delete`);
  await hand.call('DELETE', `/channels/${gone.id}`);
  t.changedChannels.add(gone.key);
  t.expected.add(`missing channels ${gone.key}`);
  for (const member of gone.members) t.expected.add(`missing members ${memberKey(t.c, gone.key, member)}`);
  for (const message of gone.messages) t.expected.add(`missing messages ${sourceOf(message).id}`);
}

/**
 * A user deleted, one no other change names: the user and its memberships are missing, and its messages
 * (which the platform keeps, without their sender) changed in `user`; in the deleted channel they are
 * missing already (it is no longer held).
 */
async function deleteUser(t: Tampering): Promise<void> {
  const held = await heldChannels(t.c.prefix);
  const victim = t.users.find((u) => !t.named.has(u.name));
  if (!victim) return;
  await hand.call('DELETE', `/users/${victim.id}`);
  t.expected.add(`missing users ${keyOf(victim.properties)}`);
  for (const ch of held) {
    if (ch.members.includes(victim.name)) t.expected.add(`missing members ${memberKey(t.c, ch.key, victim.name)}`);
    for (const m of ch.messages) if (m.user?.name === victim.name) t.expected.add(`changed messages ${sourceOf(m).id}`);
  }
}

/** A membership a members-stage record asked for is named by that record's key, one from the channel record by `<channel key>/<username>`. */
function memberKey(c: Case, channelKey: string, username: string): string {
  const record = c.members.find((l) => l.outcome === 'imported' && l.cells[1] === channelKey && l.cells[2] === username);
  return record ? record.cells[0]! : `${channelKey}/${username}`;
}

describe.each(diffSeeds('4,11,17,82'))('verification after the platform was changed by hand, seed %i', (seed) => {
  it('names each change by kind and source key, and nothing else', async () => {
    const c = generateCase(seed);
    const dir = join(f.dir, `seed-${seed}`);
    const { config } = await writeCase(dir, c, `tamper-${seed}`);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    const rejectsFiles = report.rejectsFile === undefined ? [] : [report.rejectsFile];
    const before = await runVerify({ config, rejectsFiles, sample: 'auto' }, { client: f.client });
    expect(before.differences, 'exact before any change').toEqual([]);

    const expected = await tamper(seed, c);
    const { summary, differences } = await runVerify({ config, rejectsFiles, sample: 'auto' }, { client: f.client });
    const named = differences.map((d) => `${d.kind} ${d.stage} ${d.kind === 'extra' && d.stage === 'messages' ? d.channelKey : d.sourceKey}`).sort();
    expect(named).toEqual(expected);
    expect(summary.status).toBe('differences');
  }, 120_000);
});
