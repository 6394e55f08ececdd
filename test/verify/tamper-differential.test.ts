/**
 * Verification against a platform changed behind chatport's back: a messy import (messy-source.ts) that
 * verified exact, then seeded changes made over the API as another client would (a message deleted, edited
 * to another length or the same length, its properties edited, one posted, two moved; a user's and a
 * channel's display name changed, another channel's properties; a member removed, another added; a channel
 * deleted). `chatport verify` must name each change, as the kind docs/verify.md gives it, by the record's
 * source key, and nothing else. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
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

/** Changes the platform behind chatport's back, one of each kind on distinct records; returns what verify must name. */
async function tamper(seed: number, c: Case): Promise<Expected[]> {
  const prefix = c.prefix;
  const random = rng(seed * 7919);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const channels = (await heldChannels(prefix)).filter((ch) => ch.messages.length >= 5);
  if (channels.length < 2) throw new Error(`seed ${seed}: too few channels with messages to tamper with`);
  const expected: Expected[] = [];
  // Messages: each change on another message; the ones whose place matters are not at either end of their channel.
  const [edited, other] = [channels[0]!, channels[channels.length - 1]!];
  const inner = edited.messages.slice(1, -1);
  const [deleted, longer, sameLength, properties] = [inner[0]!, inner[inner.length - 1]!, edited.messages[0]!, other.messages[1]!];
  await hand.call('DELETE', `/messages/${deleted.id}`);
  expected.push(`missing messages ${sourceOf(deleted).id}`);
  await hand.mergePatch(`/messages/${longer.id}`, { body: `${longer.body} (edited)` });
  expected.push(`changed messages ${sourceOf(longer).id}`);
  const body = sameLength.body!;
  await hand.mergePatch(`/messages/${sameLength.id}`, { body: `${body.slice(0, -1)}${body.endsWith('#') ? '%' : '#'}` });
  expected.push(`changed messages ${sourceOf(sameLength).id}`);
  await hand.mergePatch(`/messages/${properties.id}`, { properties: { source: { ...sourceOf(properties), sentAt: '1999-01-01T00:00:00.000Z' } } });
  expected.push(`changed messages ${sourceOf(properties).id}`);
  await hand.call('POST', `/channels/${other.id}/messages`, { type: 'TEXT', body: 'posted by someone else', user: { username: pick(other.members) } });
  expected.push(`extra messages ${other.key}`);
  // Moved: deleted, then the same message posted again in another channel, or at the end of its own.
  const [moved, reordered] = [inner[1]!, other.messages[2]!];
  for (const [message, to] of [[moved, other], [reordered, other]] as const) {
    await hand.call('DELETE', `/messages/${message.id}`);
    await hand.call('POST', `/channels/${to.id}/messages`, { type: message.type, body: message.body, user: { username: message.user!.name }, properties: message.properties });
  }
  expected.push(`misplaced messages ${sourceOf(moved).id}`, `out-of-order messages ${sourceOf(reordered).id}`);
  // Users and channels: display names; members: one removed, one added.
  const users = (await all(f.client.users.list())).filter((u) => u.name.startsWith(prefix));
  const user = pick(users);
  await hand.mergePatch(`/users/${user.id}`, { displayName: `${user.displayName} (renamed)` });
  expected.push(`changed users ${keyOf(user.properties)}`);
  const channel = pick(channels);
  await hand.mergePatch(`/channels/${channel.id}`, { displayName: 'renamed by hand' });
  expected.push(`changed channels ${channel.key}`);
  // Another channel's properties (its topic) edited.
  const retopiced = channel === edited ? other : edited;
  await hand.mergePatch(`/channels/${retopiced.id}`, { properties: { topic: 'set by hand' } });
  expected.push(`changed channels ${retopiced.key}`);
  const leaving = pick(channel.members);
  const leaver = users.find((u) => u.name === leaving)!;
  await hand.call('DELETE', `/channels/${channel.id}/members/${leaver.id}`);
  expected.push(`missing members ${memberKey(c, channel.key, leaving)}`);
  const joining = users.find((u) => !channel.members.includes(u.name));
  if (joining) {
    await hand.call('POST', `/channels/${channel.id}/members`, { username: joining.name });
    expected.push(`extra members ${channel.key}/${joining.name}`);
  }
  // A whole channel deleted: it, its members and its messages are missing.
  const gone = (await heldChannels(prefix)).find((ch) => ![edited.key, other.key, channel.key].includes(ch.key));
  if (!gone) throw new Error(`seed ${seed}: no fourth channel to delete`);
  await hand.call('DELETE', `/channels/${gone.id}`);
  expected.push(`missing channels ${gone.key}`);
  for (const member of gone.members) expected.push(`missing members ${memberKey(c, gone.key, member)}`);
  for (const message of gone.messages) expected.push(`missing messages ${sourceOf(message).id}`);
  return expected.sort();
}

/** A membership a members-stage record asked for is named by that record's key, one from the channel record by `<channel key>/<username>`. */
function memberKey(c: Case, channelKey: string, username: string): string {
  const record = c.members.find((l) => l.outcome === 'imported' && l.cells[1] === channelKey && l.cells[2] === username);
  return record ? record.cells[0]! : `${channelKey}/${username}`;
}

describe.each(diffSeeds('5,11,17'))('verification after the platform was changed by hand, seed %i', (seed) => {
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
