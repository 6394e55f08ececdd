/**
 * The next night's dump of messy-source.ts's source, as a live system's dump changes: users, channels and
 * messages appended; a user's display name, a channel's display name and a property changed; a user
 * renamed; a user and a message gone from the dump; a message body corrected (same length, other length);
 * members added to and dropped from channels. And the oracle of the second run over it, written from the
 * docs alone (docs/identity.md "Updates", docs/accounting.md, docs/verify.md): what each record must
 * become, what the platform must hold afterwards and what verification must find.
 */
import { rng } from '../helpers/rng.js';
import { judgeCase, type Case, type ExpectedChannel, type ExpectedMessage, type Rows } from './messy-source.js';

type Mode = 'insert' | 'upsert';
type DifferenceCounts = Record<'missing' | 'extra' | 'changed', number>;

/** What changed between the two dumps, for the oracle's messages. */
export interface Evolution {
  rows: Rows;
  renamed?: { key: string; from: string; to: string };
  removedUser?: string;
  removedMessage?: string;
}

const isImported = (l: { outcome: string }) => l.outcome === 'imported';

/** The dump of the next night (seeded): `rows` changed the way a live system's dump changes. */
export function evolveRows(rows: Rows, seed: number): Evolution {
  const random = rng(seed * 7919 + 17);
  const shuffled = <T,>(list: readonly T[]) => list.map((x) => [random(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
  const first = judgeCase(rows);
  const { prefix } = rows;

  // Users whose name no other key's record has, so a change of theirs stays theirs.
  const accepted = first.users.filter(isImported).map((l) => l.cells);
  const own = shuffled(accepted.filter(([key, name, display]) => display!.length <= 250 && rows.users.every((u) => u[0] === key || u[1] !== name)));
  const [renamedCells, redisplayed, removed] = own;
  const renamed = renamedCells && { key: renamedCells[0]!, from: renamedCells[1]!, to: `${prefix}renamed-${renamedCells[0]}` };
  const sameAs = (cells: string[]) => (row: string[]) => cells !== undefined && row.join('\u0000') === cells.join('\u0000');
  const newUsers = [0, 1].map((i) => [`u${100 + i}`, `${prefix}new${i}`, `New user ${i}`]);
  const users = rows.users
    .filter((u) => u[0] !== removed?.[0])
    .map((u) => (redisplayed && sameAs(redisplayed)(u) ? [u[0]!, u[1]!, `${u[2]} v2`] : u))
    .map((u) => (renamed && sameAs(renamedCells)(u) ? [u[0]!, renamed.to, u[2]!] : u))
    .concat(newUsers);
  // Half the nights, the removed user's name comes back under a new key (an account made again).
  if (removed && random() < 0.5) users.push(['u102', removed[1]!, 'Back again']);

  // Channels: renames and removals reach every member list; one channel gains a new user, another loses one.
  const nameNow = (name: string) => (name === renamed?.from ? renamed.to : name);
  const [gains, loses, retitled, retopiced] = shuffled(['c0', 'c1', 'c2', 'c3']);
  const stays = accepted.map((u) => u[1]!).filter((n) => n !== renamed?.from && n !== removed?.[1]);
  const dropped = shuffled(stays)[0];
  // One channel renamed: not the one whose name a rejected record of another key repeats.
  const nameOfKey = new Map(rows.channels.map(([key, name]) => [key!, name!]));
  const repeated = rows.channels.find(([key]) => !/^c[0-3]$/.test(key!))?.[1];
  const renamedChannel = shuffled(['c0', 'c1', 'c2', 'c3'].filter((k) => nameOfKey.get(k) !== repeated))[0];
  const channels = rows.channels.map(([key, name, members, title, topic]) => {
    let list = members!.split('|').map(nameNow).filter((n) => n !== removed?.[1]);
    if (key === gains) list = [...list, newUsers[0]![1]!];
    if (key === loses) list = list.filter((n) => n !== dropped);
    const nameNext = key === renamedChannel ? `${name}-renamed` : name!;
    return [key!, nameNext, list.join('|'), key === retitled ? `${title} (renamed)` : title!, key === retopiced ? `${topic} v2` : topic!];
  });
  const inNew = [newUsers[1]![1]!, ...stays.slice(0, 2)];
  channels.push(['c20', `${prefix}chan-20`, inNew.join('|'), 'Channel 20', 'topic 20']);

  // The members stage: renamed, the removed user's rows gone, one row dropped, one added for a new user.
  const droppedRow = shuffled(first.members.filter(isImported).map((l) => l.cells).filter(([, , user]) => stays.includes(user!)))[0];
  const members = rows.members
    .filter(([id, , user]) => user !== removed?.[1] && id !== droppedRow?.[0])
    .map(([id, channel, user]) => [id!, channel!, nameNow(user!)])
    .concat([['mb900', retitled!, newUsers[1]![1]!]]);

  // Messages: authors renamed; one gone; two corrected (one keeping its length); one moved to another
  // channel; one edited by a record of its key appended; new ones at the end.
  const acceptedMessages = shuffled(first.messages.filter(isImported).map((l) => l.cells));
  const [gone, sameLength, longer, moved, edited] = acceptedMessages;
  const correct = (row: string[]) => {
    if (sameAs(sameLength!)(row)) return [...row.slice(0, 4), `${row[4]![0] === 'Z' ? 'Y' : 'Z'}${row[4]!.slice(1)}`];
    if (sameAs(longer!)(row)) return [...row.slice(0, 4), `${row[4]} (corrected)`];
    if (sameAs(moved!)(row)) return [row[0]!, row[1] === 'c0' ? 'c1' : 'c0', ...row.slice(2)];
    return row;
  };
  const edit = edited && [...edited.slice(0, 4), `${edited[4]} (edit)`];
  const authors = [...stays, ...newUsers.map((u) => u[1]!), ...(renamed ? [renamed.to] : [])];
  const appended = Array.from({ length: 8 }, (_, i) => {
    const channel = i % 3 === 2 ? 'c20' : `c${i % 4}`;
    const author = channel === 'c20' ? inNew[i % inNew.length]! : authors[i % authors.length]!;
    return [`m${500 + i}`, channel, author, new Date(Date.UTC(2026, 6, 1, 0, i)).toISOString(), `appended ${i}`];
  });
  const messages = rows.messages
    .filter((m) => m[0] !== gone?.[0])
    .map(correct)
    .concat(edit ? [edit] : [])
    .map(([id, channel, author, sentAt, text]) => [id!, channel!, nameNow(author!), sentAt!, text!])
    .concat(appended);
  return { rows: { ...rows, users, channels, members, messages }, ...(renamed && { renamed }), ...(removed && { removedUser: removed[1]! }), ...(gone && { removedMessage: gone[0]! }) };
}

/** The second run's oracle: its lines, what the platform holds after it, and what its verification finds. */
export interface Rerun {
  case: Case;
  /** Per stage, the differences verification must report (messages: see messageDifferences). */
  differences: Record<'users' | 'channels' | 'members', DifferenceCounts>;
  messages: MessageTally;
}

interface HeldUser {
  key: string;
  name: string;
  display: string;
}

/**
 * Run 2 over `next` after run 1 over `first` (docs/identity.md "Updates"): users and channels the platform
 * holds for this pipeline are compared (users: name, displayName; channels: name, displayName, properties;
 * never members) and, when they differ, skipped and changed (insert) or patched and updated (upsert);
 * members are sent again and the platform skips the keys it applied; messages its channels held are
 * compared by key and, with upsert, patched (patchHeldMessages). Names are checked against the platform once the users stage is done.
 */
export function judgeRerun(first: Case, next: Rows, mode: Mode): Rerun {
  const heldUsers = new Map(first.users.filter(isImported).map(({ cells: [key, name, display] }) => [key!, { key: key!, name: name!, display: display! }]));
  const nextUsers = judgeCase(next).users;
  const usersAfter = new Map(heldUsers);
  // A name the platform holds for a key the source no longer has belongs to that user: the new record is
  // rejected before upload, and so is every record naming it (docs/mapping-language.md, name-holders.ts).
  const holderOfName = new Map([...heldUsers.values()].map((u) => [u.name, u.key]));
  const nextKeys = new Set(next.users.map(([key]) => key!));
  const strangers = new Set<string>();
  for (const line of nextUsers.filter(isImported)) {
    const [key, name, display] = line.cells as [string, string, string];
    const holder = holderOfName.get(name);
    if (holder !== undefined && holder !== key && !nextKeys.has(holder)) {
      Object.assign(line, { outcome: 'rejected', field: 'name' });
      strangers.add(name);
      continue;
    }
    const held = heldUsers.get(key);
    if (held && (held.name !== name || held.display !== display)) markChanged(line, mode);
    if (!held || mode === 'upsert') usersAfter.set(key, { key, name, display });
  }
  const platformUsers = new Set([...usersAfter.values()].map((u) => u.name).filter((n) => !strangers.has(n)));
  const heldChannelNames = new Map(first.channels.filter(isImported).map(({ cells: [key, name] }) => [key!, name!]));
  const judged = judgeCase(next, { users: platformUsers, channels: heldChannelNames });

  // A membership is the user's, whatever name it has now.
  const nameNow = new Map([...heldUsers.values()].map((u) => [u.name, usersAfter.get(u.key)!.name]));
  const heldChannels = new Map(first.channels.filter(isImported).map(({ cells }) => [cells[0]!, cells]));
  const channelsAfter = new Map<string, ExpectedChannel & { name: string }>(
    [...heldChannels].map(([key, [, name, members, title, topic]]) => [key, { name: name!, displayName: title!, topic: topic!, members: members!.split('|').map((m) => nameNow.get(m)!).sort() }]),
  );
  for (const line of judged.channels.filter(isImported)) {
    const [key, name, members, title, topic] = line.cells as [string, string, string, string, string];
    const held = heldChannels.get(key);
    if (held && (held[1] !== name || held[3] !== title || held[4] !== topic)) markChanged(line, mode);
    if (!held) channelsAfter.set(key, { name, displayName: title, topic, members: members.split('|').sort() });
    else if (mode === 'upsert') channelsAfter.set(key, { ...channelsAfter.get(key)!, name, displayName: title, topic });
  }
  // Run 1's memberships (its record's and its members stage's), as users are named now; run 2's rows join.
  for (const [name, list] of first.expectedMembers) {
    const key = [...heldChannels].find(([, cells]) => cells[1] === name)![0];
    channelsAfter.get(key)!.members = list.map((m) => nameNow.get(m)!).sort();
  }
  for (const { cells: [, key, user] } of judged.members.filter(isImported)) {
    const channel = channelsAfter.get(key!)!;
    channel.members = [...new Set([...channel.members, user!])].sort();
  }

  // Channels by the name they have after run 2 (a renamed one keeps its old name in insert mode).
  const keyOfName = new Map([...heldChannelNames].map(([key, name]) => [name, key]));
  for (const { cells: [key, name] } of judged.channels.filter((l) => isImported(l) || l.changed)) keyOfName.set(name!, key!);
  const renamed = <T,>(byName: Map<string, T>) => new Map([...byName].map(([name, value]) => [channelsAfter.get(keyOfName.get(name)!)!.name, value]));
  const sourceMessages = renamed(judged.expectedMessages);
  const messagesAfter = renamed(new Map([...first.expectedMessages].map(([name, list]) => [name, list.map((m) => ({ ...m, user: nameNow.get(m.user) ?? m.user }))])));
  const heldKeys = new Set([...first.expectedMessages.values()].flat().map((m) => m.id));
  if (mode === 'upsert') patchHeldMessages(judged.messages, sourceMessages, messagesAfter);
  for (const [name, list] of sourceMessages) {
    messagesAfter.set(name, [...(messagesAfter.get(name) ?? []), ...list.filter((m) => !heldKeys.has(m.id))]);
  }
  const expectedUsers = new Map([...usersAfter.values()].map((u) => [u.name, u.display]));
  const expectedChannels = new Map([...channelsAfter.values()].map(({ name, ...rest }) => [name, rest]));
  const sourceUsers = new Map(nextUsers.filter((l) => isImported(l) || l.changed).map(({ cells: [key, name, display] }) => [name!, { key: key!, display: display! }]));
  const differences = {
    users: userDifferences(sourceUsers, usersAfter),
    // A changed record, applied or not, is still the source's record (insert-mode ones are skipped).
    channels: channelDifferences(judged.channels.filter((l) => isImported(l) || l.changed).map((l) => l.cells), channelsAfter),
    members: memberDifferences(renamed(judged.expectedMembers), expectedChannels),
  };
  // judgeCase judges users alone (the platform does not enter), so nextUsers are its lines, marked.
  const messages = messageDifferences(sourceMessages, messagesAfter);
  return { case: { ...judged, mode, users: nextUsers, expectedUsers, expectedChannels, expectedMessages: messagesAfter }, differences, messages };
}

/**
 * Upsert: a message its channel held from run 1 (found by its key, which upsert puts in its properties)
 * with another body or sentAt is patched in its place (docs/identity.md "Updates"); its author is not compared.
 * One another channel holds is rejected (field `channel`: no update moves it) and stays where it is.
 * Run 1 in insert mode marked no keys, so nothing is found then.
 */
function patchHeldMessages(lines: Array<{ cells: string[]; outcome: string; changed?: boolean }>, source: Map<string, ExpectedMessage[]>, after: Map<string, ExpectedMessage[]>): void {
  const heldKeys = new Set([...after.values()].flat().map((h) => h.id));
  for (const [name, list] of source) {
    const held = after.get(name) ?? [];
    const moved = (m: ExpectedMessage) => heldKeys.has(m.id) && !held.some((h) => h.id === m.id);
    // A rejected record is not expected on the platform (verification leaves the run's rejects out).
    for (const m of list.filter(moved)) Object.assign(lines.find((l) => l.outcome === 'imported' && l.cells[0] === m.id)!, { outcome: 'rejected', field: 'channel' });
    source.set(name, list.filter((m) => !moved(m)));
    for (const m of list) {
      const at = held.findIndex((h) => h.id === m.id);
      if (at === -1 || (held[at]!.body === m.body && held[at]!.sentAt === m.sentAt)) continue;
      held[at] = { ...held[at]!, body: m.body, sentAt: m.sentAt };
      markChanged(lines.find((l) => l.outcome === 'imported' && l.cells[0] === m.id)!, 'upsert');
    }
  }
}

/** A held record with other content: skipped and changed (insert), imported and updated (upsert). */
function markChanged(line: { outcome: string; changed?: boolean }, mode: Mode): void {
  line.changed = true;
  line.outcome = mode === 'insert' ? 'skipped' : 'imported';
}

const none = (): DifferenceCounts => ({ missing: 0, extra: 0, changed: 0 });

/**
 * Users by name (docs/verify.md): missing, changed display name, extra (this pipeline's, not in the source).
 * A source name the platform lacks while the user of its key holds a name no source user has is one
 * changed user (renamed there: an insert-mode rerun keeps the old name), not a missing and an extra.
 */
function userDifferences(source: Map<string, { key: string; display: string }>, platform: Map<string, HeldUser>): DifferenceCounts {
  const held = new Map([...platform.values()].map((u) => [u.name, u.display]));
  const renamedTo = new Set<string>();
  const d = none();
  for (const [name, { key, display }] of source) {
    const ofKey = platform.get(key);
    if (held.has(name)) {
      if (held.get(name) !== display) d.changed++;
    } else if (ofKey !== undefined && !source.has(ofKey.name)) {
      d.changed++;
      renamedTo.add(ofKey.name);
    } else d.missing++;
  }
  for (const name of held.keys()) if (!source.has(name) && !renamedTo.has(name)) d.extra++;
  return d;
}

/** Channels by key: changed name, display name or properties (the topic), extra keys. */
function channelDifferences(source: string[][], platform: Map<string, { name: string; displayName: string; topic: string }>): DifferenceCounts {
  const d = none();
  for (const [key, name, , title, topic] of source) {
    const held = platform.get(key!);
    if (!held) d.missing++;
    else if (held.name !== name || held.displayName !== title || held.topic !== topic) d.changed++;
  }
  const keys = new Set(source.map((c) => c[0]));
  for (const key of platform.keys()) if (!keys.has(key)) d.extra++;
  return d;
}

/** Per channel, the usernames the source lists against those the platform holds. */
function memberDifferences(source: Map<string, string[]>, platform: Map<string, ExpectedChannel>): DifferenceCounts {
  const d = none();
  for (const [name, members] of source) {
    const held = new Set(platform.get(name)?.members ?? []);
    d.missing += members.filter((m) => !held.has(m)).length;
    d.extra += [...held].filter((m) => !members.includes(m)).length;
  }
  return d;
}

/**
 * Messages are aligned by position, and a missing message paired with an extra one becomes one changed,
 * misplaced or out-of-order difference (docs/verify.md "How messages are compared"), which the oracle does
 * not redo. What it says exactly: which messages are verified (held in their channel with their content,
 * in the longest run of such keys both sides have in the same order); every other expected message is in
 * one difference, and so is every other platform message of the channels.
 */
function messageDifferences(source: Map<string, ExpectedMessage[]>, platform: Map<string, ExpectedMessage[]>): MessageTally {
  const same = (a: ExpectedMessage, b: ExpectedMessage) => a.id === b.id && a.body === b.body && a.user === b.user && a.sentAt === b.sentAt;
  const tally = { expected: 0, verified: 0, platformUnmatched: 0 };
  for (const name of new Set([...source.keys(), ...platform.keys()])) {
    const expected = source.get(name) ?? [];
    const held = platform.get(name) ?? [];
    const identical = (list: ExpectedMessage[], other: ExpectedMessage[]) => list.filter((m) => other.some((o) => same(m, o))).map((m) => m.id);
    const verified = longestCommonSubsequence(identical(expected, held), identical(held, expected)).size;
    tally.expected += expected.length;
    tally.verified += verified;
    tally.platformUnmatched += held.length - verified;
  }
  return tally;
}

/** Messages: how many are expected and verified, and how many platform messages are in no verified pair. */
export interface MessageTally {
  expected: number;
  verified: number;
  platformUnmatched: number;
}

/** The keys of a longest common subsequence of two key lists. */
function longestCommonSubsequence(a: string[], b: string[]): Set<string> {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const keys = new Set<string>();
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      keys.add(a[i]!);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return keys;
}
