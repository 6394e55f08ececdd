/**
 * Messy input for the import's differential tests: a seeded generator writes users, channels, members and
 * messages (as CSV, NDJSON or a JSON array) with the defects real dumps have (quoted commas and line
 * breaks, exact and conflicting repeats of a key, unknown or rejected authors and channels, empty and
 * over-long fields, bad dates, names taken twice), with `duplicates: reject` or `last-wins` on the
 * messages, and a small oracle written from the docs alone (docs/accounting.md, docs/mapping-language.md,
 * docs/pipeline-core.md) says what each record must become. Generation and judgement are apart
 * (generateRows, judgeCase), so evolving-source.ts can judge the next night's dump too, against what the
 * platform then holds. The checks compare a run's report, its rejects, duplicates and changed files, and
 * what the platform holds (read back over HTTP, not through chatport's verification) with the oracle.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ChatportClient } from '../../src/api/index.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';
import { rng } from '../helpers/rng.js';
import { all, writeInput, writePipeline } from './support.js';

type Outcome = 'imported' | 'duplicate' | 'skipped' | 'rejected';
type Format = 'csv' | 'ndjson' | 'json';

interface Line {
  cells: string[];
  /** What the oracle says the line becomes, and for a rejected line the field to blame (none: a key conflict). */
  outcome: Outcome;
  field?: string;
  /** Held by the platform with other content: skipped and changed (insert), imported and updated (upsert). */
  changed?: boolean;
}

export interface ExpectedChannel {
  displayName: string;
  topic: string;
  /** Usernames, sorted. */
  members: string[];
}

export interface ExpectedMessage {
  body: string;
  user: string;
  id: string;
  sentAt: string;
}

export interface Case {
  prefix: string;
  /** The messages stage's `duplicates` option. */
  duplicates: 'reject' | 'last-wins';
  /** The input files' format (all three stages). */
  format: Format;
  /** The pipeline's `mode` (default insert). */
  mode?: 'insert' | 'upsert';
  users: Line[];
  channels: Line[];
  members: Line[];
  messages: Line[];
  /** Usernames the platform must hold, with their display names. */
  expectedUsers: Map<string, string>;
  /** Channel name → its messages in source order. */
  expectedMessages: Map<string, ExpectedMessage[]>;
  /** Channel name → what the platform must hold of it besides its messages. */
  expectedChannels: Map<string, ExpectedChannel>;
  /** Channel name → the usernames the source says are its members (its record's and the members stage's), sorted. */
  expectedMembers: Map<string, string[]>;
  /** The source the case was judged from. */
  rows: Rows;
}

const PIECES = ['hello', 'a, b', 'say "hi"', 'line one\nline two', 'crlf\r\nend', 'émoji 🎉', '  padded  ', 'x'.repeat(300), '日本語', 'tab\there', '=1+2', 'null', ''];
const BAD_DATES = ['2026-13-01T00:00:00Z', 'yesterday', '2026-02-30T10:00:00Z'];

/**
 * The oracle's rules, from the docs: a key seen again with the same content is a duplicate and with other
 * content is rejected, unless every earlier record of the key was rejected (then it is judged on its own);
 * a record is otherwise judged field by field, and a name an earlier record of the stage has is rejected.
 */
class Oracle {
  /** Source key → the cells of its record that was accepted. */
  private readonly accepted = new Map<string, string[]>();

  constructor(private readonly judge: (cells: string[]) => string | undefined) {}

  /** The outcome of one line; `accept` runs for an accepted one. */
  line(cells: string[], accept: () => void): Line {
    const earlier = this.accepted.get(cells[0]!);
    if (earlier !== undefined) return { cells, outcome: earlier.join('\u0000') === cells.join('\u0000') ? 'duplicate' : 'rejected' };
    const field = this.judge(cells);
    if (field !== undefined) return { cells, outcome: 'rejected', field };
    this.accepted.set(cells[0]!, cells);
    accept();
    return { cells, outcome: 'imported' };
  }
}

/** A case's records before judgement: what the source files hold. */
export interface Rows {
  prefix: string;
  duplicates: Case['duplicates'];
  format: Format;
  /** id, username, display. */
  users: string[][];
  /** key, name, members ("|" between usernames), title, topic. */
  channels: string[][];
  /** id, channel, username: the members stage. */
  members: string[][];
  /** id, channel, author, sent_at, text. */
  messages: string[][];
}

export function generateCase(seed: number): Case {
  return judgeCase(generateRows(seed));
}

function generateRows(seed: number): Rows {
  const random = rng(seed);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const prefix = `d${seed}-`;
  const text = () => {
    let t = pick(PIECES);
    while (chance(0.4)) t += ` ${pick(PIECES)}`;
    return t;
  };
  /** Each line once more as it is, or with its last cell changed. */
  const repeatOf = (cells: string[], suffix: string) => (chance(0.5) ? [...cells] : [...cells.slice(0, -1), `${cells.at(-1)}${suffix}`]);

  // Users (id, username, display); display comes last so a changed repeat changes it.
  const users: string[][] = [];
  for (let i = 0; i < 12; i++) {
    const roll = random();
    const taken = [...judgeUsers(users).expected.keys()];
    const name = roll < 0.06 ? `${prefix}${'n'.repeat(130)}` : roll < 0.14 && taken.length > 0 ? pick(taken) : `${prefix}user${i}`;
    users.push([`u${i}`, name, roll > 0.92 ? '' : text()]);
  }
  for (let r = 0; r < 3; r++) users.push(repeatOf(pick(users.slice(0, 12)), ' (changed)'));

  // Channels (key, name, members, title, topic): channel c's record lists every imported user but every
  // fourth; the members stage adds most of those.
  const accepted = judgeUsers(users).expected;
  const members = [...accepted.keys()];
  const listedIn = (c: number) => members.filter((_, i) => i % 4 !== c);
  const channels = Array.from({ length: 4 }, (_, c) => [`c${c}`, `${prefix}chan-${c}`, listedIn(c).join('|'), `Channel ${c}`, `topic ${c}`]);
  channels.push([...channels[1]!]);
  // A channel of another key with an earlier one's name: rejected, and so are the messages it would hold.
  const holder = chance(0.5) ? Math.floor(random() * 4) : undefined;
  const nameTaken = holder === undefined ? undefined : [`c${4 + Math.floor(random() * 8)}`, channels[holder]![1]!, members.join('|'), 'Taken', 'taken'];
  if (nameTaken) channels.splice(holder! + 1 + Math.floor(random() * (channels.length - holder!)), 0, nameTaken);

  // Messages (id, channel, author, sent_at, text).
  const strangers = [`${prefix}nobody`, ...users.filter((u) => !accepted.has(u[1]!)).map((u) => u[1]!)];
  const messages: string[][] = [];
  for (let m = 0; m < 160; m++) {
    const roll = random();
    const channel = roll < 0.04 ? (nameTaken?.[0] ?? 'c99') : pick(['c0', 'c1', 'c2', 'c3']);
    const author = roll >= 0.04 && roll < 0.1 ? pick(strangers) : pick(members);
    const body = roll >= 0.1 && roll < 0.13 ? '' : roll >= 0.13 && roll < 0.15 ? 'y'.repeat(40_001) : text();
    const sentAt = roll >= 0.15 && roll < 0.19 ? pick(BAD_DATES) : new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 1e10)).toISOString();
    messages.push([`m${m}`, channel, author, sentAt, body]);
    if (chance(0.06)) messages.push(repeatOf(pick(messages), ' (edited)'));
  }
  const duplicates = chance(0.5) ? 'last-wins' : 'reject';
  const format = pick(['csv', 'csv', 'ndjson', 'json'] as const);
  const memberRows = generateMembers(seed, members, strangers, nameTaken?.[0] ?? 'c99');
  return { prefix, duplicates, format, users, channels, members: memberRows, messages };
}

/**
 * The members stage's rows (id, channel, username), from a generator of their own so the other stages stay
 * as they were: most users a channel's record leaves out, a stranger (rejected), a row for a channel that
 * is not imported (rejected), and a row repeated.
 */
function generateMembers(seed: number, members: string[], strangers: string[], notImported: string): string[][] {
  const random = rng(seed * 31 + 5);
  const rows: string[][] = [];
  const add = (channel: string, username: string) => rows.push([`mb${rows.length}`, channel, username]);
  for (let c = 0; c < 4; c++) for (const [i, name] of members.entries()) if (i % 4 === c && random() < 0.7) add(`c${c}`, name);
  add(`c${Math.floor(random() * 4)}`, strangers[Math.floor(random() * strangers.length)]!);
  if (members.length > 0) add(notImported, members[0]!);
  if (rows.length > 0) rows.push([...rows[Math.floor(random() * rows.length)]!]);
  return rows;
}

/** The users' outcomes, and the usernames the accepted ones give the platform (with their display names). */
function judgeUsers(rows: string[][]): { lines: Line[]; expected: Map<string, string> } {
  const expected = new Map<string, string>();
  const nameHolder = new Map<string, string>();
  const oracle = new Oracle(([key, name, display]) => {
    if (display!.length === 0 || display!.length > 256) return 'displayName';
    if (name!.length > 128) return 'name';
    if (nameHolder.has(name!) && nameHolder.get(name!) !== key) return 'name';
    return undefined;
  });
  const lines = rows.map((cells) =>
    oracle.line(cells, () => {
      nameHolder.set(cells[1]!, cells[0]!);
      expected.set(cells[1]!, cells[2]!);
    }),
  );
  return { lines, expected };
}

/**
 * What the platform answers when a run checks names against it (docs/accounting.md "Before each stage
 * uploads"): the usernames it holds once the users stage is done. Absent: the source's accepted users.
 */
export interface PlatformNames {
  users: ReadonlySet<string>;
  /** Channel keys the platform holds for the pipeline: members and messages find them there (README "How a run works"). */
  channels: ReadonlyMap<string, string>;
}

/** Each record's outcome under the oracle's rules, and what the platform must hold after a first run. */
export function judgeCase(rows: Rows, platform?: PlatformNames): Case {
  const { prefix, duplicates, format } = rows;
  const { lines: users, expected: expectedUsers } = judgeUsers(rows.users);
  const knownUser = (name: string) => (platform?.users ?? expectedUsers).has(name);
  const channelNames = new Map<string, string>();
  const channels = new Oracle(([key, name, members]) => {
    if ([...channelNames].some(([k, n]) => n === name && k !== key)) return 'name';
    const unknown = members!.split('|').findIndex((m) => !knownUser(m));
    return unknown === -1 ? undefined : `members.${unknown}`;
  });
  const channelLines = rows.channels.map((cells) => channels.line(cells, () => channelNames.set(cells[0]!, cells[1]!)));
  const channelOf = (key: string) => channelNames.get(key) ?? platform?.channels.get(key);
  const memberships = new Map([...channelNames.values()].map((n) => [n, new Set<string>()]));
  for (const { cells: [, name, list] } of channelLines.filter((l) => l.outcome === 'imported')) for (const m of list!.split('|')) memberships.get(name!)!.add(m);
  const members = new Oracle(([, channel, username]) => {
    if (channelOf(channel!) === undefined) return 'channelId';
    return knownUser(username!) ? undefined : 'username';
  });
  const memberLines = rows.members.map((cells) => members.line(cells, () => memberships.set(channelOf(cells[1]!)!, (memberships.get(channelOf(cells[1]!)!) ?? new Set()).add(cells[2]!))));
  const messages = judgeMessages(rows.messages, duplicates, {
    mapping: ([, channel, , sentAt, body]) => {
      if (body!.length === 0 || body!.length > 40_000) return 'body';
      if (BAD_DATES.includes(sentAt!)) return 'properties.source.sentAt';
      if (channelOf(channel!) === undefined) return 'channelId';
      return undefined;
    },
    // Authors are checked against the platform once the record itself is valid.
    platform: ([, , author]) => (knownUser(author!) ? undefined : 'user'),
  });
  const expectedMessages = new Map<string, ExpectedMessage[]>([...channelNames.values()].map((n) => [n, []]));
  for (const { cells, outcome } of messages) {
    if (outcome !== 'imported') continue;
    const [id, channel, author, sentAt, body] = cells as [string, string, string, string, string];
    const name = channelOf(channel)!;
    expectedMessages.set(name, [...(expectedMessages.get(name) ?? []), { body, user: author, id, sentAt }]);
  }
  const expectedChannels = new Map(
    channelLines.filter((l) => l.outcome === 'imported').map(({ cells: [, name, , title, topic] }) => [name!, { displayName: title!, topic: topic!, members: [...memberships.get(name!)!].sort() }]),
  );
  const expectedMembers = new Map([...memberships].map(([name, set]) => [name, [...set].sort()]));
  return { prefix, duplicates, format, users, channels: channelLines, members: memberLines, messages, expectedUsers, expectedMessages, expectedChannels, expectedMembers, rows };
}

interface MessageChecks {
  /** The field the mapping or validation rejects (a record that fails here is never a key's record). */
  mapping(cells: string[]): string | undefined;
  /** The field the checks against the platform reject, made after the mapping's. */
  platform(cells: string[]): string | undefined;
}

/**
 * Each message's outcome (docs/pipeline-core.md, source-duplicates.ts). `reject`: a key's first valid record
 * is imported, a later one with the same content is a duplicate and with other content rejected. `last-wins`:
 * the key's last record the mapping accepts is the one sent; an earlier one is a duplicate of it (same
 * content) or skipped (superseded). A record the platform's checks reject is rejected either way.
 */
function judgeMessages(rows: string[][], mode: Case['duplicates'], checks: MessageChecks): Line[] {
  const same = (a: string[], b: string[]) => a.join('\u0000') === b.join('\u0000');
  if (mode === 'reject') {
    const oracle = new Oracle((cells) => checks.mapping(cells) ?? checks.platform(cells));
    return rows.map((cells) => oracle.line(cells, () => undefined));
  }
  const last = new Map<string, number>();
  rows.forEach((cells, i) => {
    if (checks.mapping(cells) === undefined) last.set(cells[0]!, i);
  });
  return rows.map((cells, i): Line => {
    const field = checks.mapping(cells);
    if (field !== undefined) return { cells, outcome: 'rejected', field };
    // The platform's checks come before the key's (stage-runner.ts takeAccepted).
    const refused = checks.platform(cells);
    if (refused !== undefined) return { cells, outcome: 'rejected', field: refused };
    const winner = last.get(cells[0]!)!;
    if (winner !== i) return { cells, outcome: same(cells, rows[winner]!) ? 'duplicate' : 'skipped' };
    return { cells, outcome: 'imported' };
  });
}

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csvText = (header: string, lines: Line[]) => `${header}\n${lines.map((l) => l.cells.map(csvField).join(',')).join('\n')}\n`;

/** The physical line each record starts on (the header is line 1; quoted line breaks push the next ones down). */
function csvStartLines(lines: Line[]): number[] {
  let at = 2;
  return lines.map((l) => {
    const start = at;
    at += 1 + l.cells.join(',').split(/\r\n|\n|\r/).length - 1;
    return start;
  });
}

/** The case's records as one format: text, and the line each record starts on. */
const WRITERS: Record<Format, { text(header: string, lines: Line[]): string; starts(lines: Line[]): number[] }> = {
  csv: { text: csvText, starts: csvStartLines },
  ndjson: { text: (header, lines) => lines.map((l) => `${JSON.stringify(recordOf(header, l))}\n`).join(''), starts: (lines) => lines.map((_, i) => i + 1) },
  // One element a line, so element i starts on line i + 2.
  json: { text: (header, lines) => `[\n${lines.map((l) => JSON.stringify(recordOf(header, l))).join(',\n')}\n]\n`, starts: (lines) => lines.map((_, i) => i + 2) },
};

const recordOf = (header: string, line: Line) => Object.fromEntries(header.split(',').map((field, i) => [field, line.cells[i]]));

const HEADERS = { users: 'id,username,display', channels: 'key,name,members,title,topic', members: 'id,channel,username', messages: 'id,channel,author,sent_at,text' } as const;

/** Writes the case's three input files and its pipeline into `dir`. */
export async function writeCase(dir: string, c: Case, name: string) {
  const writer = WRITERS[c.format];
  for (const stage of STAGES) await writeInput(dir, `${stage}.${c.format}`, writer.text(HEADERS[stage], c[stage]));
  return writePipeline(dir, PIPELINE(name, c));
}

const PIPELINE = (name: string, c: Case) =>
  generatedPipelineYaml({ name, options: `{ chunkRecords: 7, concurrency: 3, mode: ${c.mode ?? 'insert'} }`, messageProperties: '{ source: { id: id, sentAt: { field: sent_at, type: date } } }' })
    .replace('    channel: channel\n', `    channel: channel\n    options: { duplicates: ${c.duplicates} }\n`)
    .replace('members: { field: members, split: "|" } }', 'members: { field: members, split: "|" }, displayName: title, properties: { topic: topic } }')
    .replace('  messages:\n', MEMBERS_STAGE)
    .replaceAll('.csv }', `.${c.format} }`);

const MEMBERS_STAGE = `  members:
    source: { path: members.csv }
    key: id
    channel: channel
    mapping: { username: username }
  messages:
`;

const STAGES = ['users', 'channels', 'members', 'messages'] as const;

/** A line of the rejects file or of a duplicates file (index: the record's, from 0). */
interface Listed {
  stage: string;
  index: number;
  line?: number;
  reasons?: { field?: string }[];
  kind?: 'duplicate' | 'superseded';
  /** A changed line: whether the update was applied. */
  applied?: boolean;
}

const counts = (lines: Line[]) => ({
  read: lines.length,
  imported: lines.filter((l) => l.outcome === 'imported').length,
  duplicates: lines.filter((l) => l.outcome === 'duplicate').length,
  rejected: lines.filter((l) => l.outcome === 'rejected').length,
  skipped: lines.filter((l) => l.outcome === 'skipped').length,
  updated: lines.filter((l) => l.changed && l.outcome === 'imported').length,
  changed: lines.filter((l) => l.changed && l.outcome === 'skipped').length,
});

/** The lines of an NDJSON file, parsed; none when it does not exist. */
export const ndjson = async (file: string): Promise<unknown[]> =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

/** What a run's report says about where its files are and what it counted. */
export interface RunFiles {
  rejectsFile?: string | undefined;
  runDir: string;
  stages: Partial<Record<string, object>>;
}

/**
 * Line by line: rejected lines are in the rejects file (blaming the oracle's field), duplicates in the
 * duplicates file, every other line is imported; and the stage counts say the same. Several runs are the
 * shards of one sharded run: each channel's records are one shard's, and every shard has the users (shard 0
 * reports them, as `chatport status --shards` adds them up).
 */
export async function expectLineOutcomes(report: RunFiles | RunFiles[], c: Case): Promise<void> {
  const runs = Array.isArray(report) ? report : [report];
  for (const stage of STAGES) {
    const lines = c[stage];
    const reporting = stage === 'users' ? runs.slice(0, 1) : runs;
    const listed: Listed[] = [];
    const duplicates: Listed[] = [];
    for (const run of reporting) {
      listed.push(...((await ndjson(run.rejectsFile ?? '')) as Listed[]).filter((r) => r.stage === stage));
      duplicates.push(...((await ndjson(join(run.runDir, 'duplicates', `${stage}.ndjson`))) as Listed[]));
    }
    const starts = WRITERS[c.format].starts(lines);
    // Records are found by their index; their lines are checked where the format has lines per record.
    const changed: Listed[] = [];
    for (const run of reporting) changed.push(...((await ndjson(join(run.runDir, 'changed', `${stage}.ndjson`))) as Listed[]));
    const outcomeOf = (index: number) => {
      if (listed.some((r) => r.index === index)) return 'rejected';
      const applied = changed.find((d) => d.index === index)?.applied;
      if (applied !== undefined) return applied ? 'imported (changed)' : 'skipped (changed)';
      const kind = duplicates.find((d) => d.index === index)?.kind;
      return kind === undefined ? 'imported' : kind === 'duplicate' ? 'duplicate' : 'skipped';
    };
    const expected = (l: Line) => (l.changed ? `${l.outcome} (changed)` : l.outcome);
    expect(lines.map((_, i) => `${starts[i]}: ${outcomeOf(i)}`), `${stage}, line by line`).toEqual(lines.map((l, i) => `${starts[i]}: ${expected(l)}`));
    expect(listed.length + duplicates.length, `${stage}: each line listed once`).toBe(lines.filter((l) => l.outcome !== 'imported' && !l.changed).length);
    expect(changed.length, `${stage}: each changed line listed once`).toBe(lines.filter((l) => l.changed).length);
    if (c.format !== 'json') for (const entry of [...listed, ...duplicates]) expect(entry.line, `${stage} record ${entry.index}'s line`).toBe(starts[entry.index]);
    for (const [i, l] of lines.entries()) {
      if (l.outcome !== 'rejected' || l.field === undefined) continue;
      const entry = listed.find((r) => r.index === i);
      expect(entry?.reasons?.map((r) => r.field), `${stage} line ${starts[i]} blames ${l.field}`).toContain(l.field);
    }
    expect(sumCounts(reporting.map((run) => run.stages[stage] as Record<string, number> | undefined)), `${stage} counts`).toMatchObject(counts(lines));
  }
}

/** The outcome counts of one stage over the runs that report it. */
function sumCounts(stages: Array<Record<string, number> | undefined>) {
  const keys = ['read', 'imported', 'duplicates', 'rejected', 'skipped', 'updated', 'changed'] as const;
  return Object.fromEntries(keys.map((k) => [k, stages.reduce((n, s) => n + (s?.[k] ?? 0), 0)]));
}

/** The case's users, channels and messages as the platform holds them. */
export async function platformState(client: ChatportClient, prefix: string) {
  const users = new Map((await all(client.users.list())).filter((u) => u.name.startsWith(prefix)).map((u) => [u.name, u.displayName]));
  const channels = (await all(client.channels.list())).filter((ch) => ch.name?.startsWith(prefix));
  const details = new Map<string, ExpectedChannel>();
  for (const channel of channels) {
    const members = (await all(client.channels.members(channel.id, { pageSize: 100 }))).map((u) => u.name).sort();
    details.set(channel.name!, { displayName: channel.displayName ?? '', topic: String((channel.properties as { topic?: unknown } | undefined)?.topic), members });
  }
  const messages = new Map<string, { body: string; user: string | undefined; id: unknown; sentAt: unknown }[]>();
  for (const channel of channels) {
    const held = (await all(client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    const source = (m: (typeof held)[number]) => (m.properties as { source?: { id?: unknown; sentAt?: unknown } } | undefined)?.source;
    messages.set(channel.name!, held.map((m) => ({ body: m.body ?? '', user: m.user?.name, id: source(m)?.id, sentAt: source(m)?.sentAt })));
  }
  return { users, channels: channels.map((ch) => ch.name).sort(), details, messages };
}

/** The platform holds exactly what the oracle says, each channel's messages in source order; returns what it holds. */
export async function expectPlatformHolds(client: ChatportClient, c: Case) {
  const held = await platformState(client, c.prefix);
  expect(held.users).toEqual(c.expectedUsers);
  expect(held.channels).toEqual([...c.expectedMessages.keys()].sort());
  expect(held.details).toEqual(c.expectedChannels);
  for (const [name, expected] of c.expectedMessages) expect(held.messages.get(name), `messages of ${name}`).toEqual(expected);
  return held;
}

/** Seeds from DIFF_SEEDS (to run many by hand), else the given few. */
export const diffSeeds = (fallback: string): number[] => (process.env.DIFF_SEEDS ?? fallback).split(',').map(Number);
