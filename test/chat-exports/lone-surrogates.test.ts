import { cp, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startImportFixture, writePipeline } from '../import/support.js';
import { readPlatform, type Json, type PlatformState } from '../slack-migration/support.js';

/**
 * A JSON string holding half of a surrogate pair alone (`"\ud800"`) in a chat export: the record holding it
 * is rejected naming the file, the record and the field, and the platform holds every other record. The
 * bundled samples are imported into the sandbox twice, as they are and with two such escapes put in.
 */
const SAMPLES = join(import.meta.dirname, '../../fixtures');
const KINDS = ['slack', 'discord', 'mattermost'] as const;
type Kind = (typeof KINDS)[number];

interface RejectLine {
  file: string;
  index: number;
  reasons: Array<{ field: string; message: string }>;
  record: unknown;
}

async function importInto(kind: Kind, exportPath: string) {
  const f = await startImportFixture();
  try {
    const { config } = await writePipeline(f.dir, `name: ${kind}\n${kind}:\n  export: ${exportPath}\n`);
    const report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
    const text = report.rejectsFile ? await readFile(report.rejectsFile, 'utf8').catch(() => '') : '';
    const rejects = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RejectLine);
    return { report, rejects, platform: await readPlatform(f.client) };
  } finally {
    await f.close();
  }
}

/** `\ud800` put at the start of the string value of `needle` (`"text": "`), the first after `anchor`. */
function withLoneSurrogate(text: string, anchor: string, needle: string): string {
  const from = text.indexOf(anchor);
  const at = text.indexOf(needle, from);
  if (from < 0 || at < 0) throw new Error(`${anchor} … ${needle} not found`);
  const cut = at + needle.length;
  return `${text.slice(0, cut)}\\ud800${text.slice(cut)}`;
}

async function editFile(path: string, edit: (text: string) => string): Promise<void> {
  await writeFile(path, edit(await readFile(path, 'utf8')));
}

const isPlainMessage = (m: Json) => typeof m.text === 'string' && m.text !== '' && m.subtype === undefined && m.thread_ts === undefined;

/** The damaged copy of a sample and what it damaged: the record of a message and of a user, by file, index and field. */
interface Damage {
  folder: string;
  exportPath: string;
  message: { file: string; index: number; field: string; isSource: (sourceId: string) => boolean };
  /** `isSource`: a Discord user comes from a message, which is the record rejected. */
  user: { file: string; index: number; field: string; name: string; isSource?: (sourceId: string) => boolean };
}

async function copyOf(sample: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'chatport-surrogates-'));
  await cp(join(SAMPLES, sample), folder, { recursive: true });
  return folder;
}

/** Slack: a message's `text` in a day file, and a user's `profile.real_name` in users.json (a user no message names). */
async function damageSlack(): Promise<Damage> {
  const folder = await copyOf('slack/sample');
  const dayFile = `-general-/${(await readdir(join(folder, '-general-'))).sort()[0]}`;
  const messages = JSON.parse(await readFile(join(folder, dayFile), 'utf8')) as Json[];
  const index = messages.findIndex(isPlainMessage);
  const ts = String(messages[index]!.ts);
  await editFile(join(folder, dayFile), (t) => withLoneSurrogate(t, `"ts": "${ts}"`, '"text": "'));
  const users = JSON.parse(await readFile(join(folder, 'users.json'), 'utf8')) as Json[];
  const userIndex = users.findIndex((u) => u.id === 'U0A01');
  await editFile(join(folder, 'users.json'), (t) => withLoneSurrogate(t, '"id": "U0A01"', '"real_name": "'));
  return {
    folder,
    exportPath: folder,
    message: { file: join(folder, dayFile), index, field: 'text', isSource: (id) => id.endsWith(`/${ts}`) },
    user: { file: join(folder, 'users.json'), index: userIndex, field: 'profile.real_name', name: String(users[userIndex]!.name) },
  };
}

/** Discord: a message's `content`, and its author's `name` in another message of that author (users come from messages). */
async function damageDiscord(): Promise<Damage> {
  const folder = await copyOf('discord/sample');
  const file = 'Generated Guild - Text Channels - lobby.json';
  const all = (await Promise.all((await readdir(folder)).map((f) => readFile(join(folder, f), 'utf8')))).join('\n');
  const messages = (JSON.parse(await readFile(join(folder, file), 'utf8')) as { messages: Json[] }).messages;
  // Messages nothing else refers to (no reply, thread or mention of them), by an author who writes others.
  const plain = (m: Json) => m.type === 'Default' && m.content !== '' && m.reference === undefined && all.split(String(m.id)).length === 2;
  const authorOf = (m: Json) => String((m.author as Json).id);
  const writes = (m: Json) => messages.filter((o) => authorOf(o) === authorOf(m)).length;
  const index = messages.findIndex(plain);
  const userIndex = messages.findIndex((m, i) => i !== index && plain(m) && writes(m) >= 3);
  const [message, author] = [messages[index]!, messages[userIndex]!];
  await editFile(join(folder, file), (t) => withLoneSurrogate(withLoneSurrogate(t, `"id":"${String(message.id)}"`, '"content":"'), `"id":"${String(author.id)}"`, '"name":"'));
  return {
    folder,
    exportPath: folder,
    message: { file: join(folder, file), index, field: 'content', isSource: (id) => id === String(message.id) },
    user: { file: join(folder, file), index: userIndex, field: 'author.name', name: String((author.author as Json).name), isSource: (id) => id === String(author.id) },
  };
}

/** Mattermost: a post's `message` (a post without replies), and a user's `first_name`. */
async function damageMattermost(): Promise<Damage> {
  const folder = await copyOf('mattermost/sample');
  const path = join(folder, 'export.jsonl');
  const lines = (await readFile(path, 'utf8')).split('\n');
  const parsed = lines.map((l) => (l === '' ? {} : (JSON.parse(l) as Json)));
  const postIndex = parsed.findIndex((l) => l.type === 'post' && ((l.post as Json).replies as unknown[]).length === 0 && (l.post as Json).message !== '');
  const userIndex = parsed.findIndex((l) => l.type === 'user' && (l.user as Json).first_name !== '');
  lines[postIndex] = withLoneSurrogate(lines[postIndex]!, '"post":', '"message":"');
  lines[userIndex] = withLoneSurrogate(lines[userIndex]!, '"user":', '"first_name":"');
  await writeFile(path, lines.join('\n'));
  const post = parsed[postIndex]!.post as Json;
  return {
    folder,
    exportPath: path,
    message: { file: 'export.jsonl', index: postIndex, field: 'post.message', isSource: (id) => id.startsWith(`${String(post.team)}/${String(post.channel)}/${String(post.create_at)}/${String(post.user)}/`) },
    user: { file: 'export.jsonl', index: userIndex, field: 'user.first_name', name: String((parsed[userIndex]!.user as Json).username) },
  };
}

const DAMAGE: Record<Kind, () => Promise<Damage>> = { slack: damageSlack, discord: damageDiscord, mattermost: damageMattermost };

/** Every message the platform holds (in channels and reply threads), as channel, source id and body. */
function messagesOf(platform: PlatformState): string[] {
  const lines: string[] = [];
  for (const c of platform.channels)
    for (const m of [...c.messages, ...[...c.threads.values()].flatMap((t) => t.replies)]) lines.push(`${c.slackId} ${String(m.source.id)} ${m.body}`);
  return lines.sort();
}

const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/i;

describe('a lone surrogate in a chat export', () => {
  it.each(KINDS)('%s: the message and the user record holding one are rejected by file, record and field; every other record is on the platform', async (kind) => {
    const damage = await DAMAGE[kind]();
    const clean = await importInto(kind, join(SAMPLES, kind === 'mattermost' ? 'mattermost/sample/export.jsonl' : `${kind}/sample`));
    const damaged = await importInto(kind, damage.exportPath);

    const known = (r: RejectLine) => clean.rejects.some((c) => c.file.endsWith(r.file.slice(r.file.lastIndexOf('/'))) && c.index === r.index && c.reasons[0]!.field === r.reasons[0]!.field);
    const added = damaged.rejects.filter((r) => !known(r));
    const found = (what: { file: string; index: number; field: string }) => ({
      file: expect.stringContaining(what.file.startsWith('/') ? what.file : `/${what.file}`),
      index: what.index,
      reasons: [expect.objectContaining({ field: what.field, message: expect.stringContaining('\\uD800 at character 1 without the other half of its surrogate pair') })],
    });
    expect(added).toEqual(expect.arrayContaining([expect.objectContaining(found(damage.message)), expect.objectContaining(found(damage.user))]));
    expect(added).toHaveLength(2);
    expect(damaged.report.totals.balanced).toBe(true);
    expect(damaged.report.totals.rejected).toBe(clean.report.totals.rejected + 2);
    expect(damaged.report.verification?.status).toBe('exact');

    // Nothing on the platform holds a lone surrogate (JSON.stringify writes one as its escape).
    expect(JSON.stringify({ users: damaged.platform.users, channels: damaged.platform.channels.map((c) => ({ ...c, threads: [...c.threads] })) })).not.toMatch(LONE_SURROGATE_ESCAPE);
    // Every other message is there, as in the clean import; the damaged one is not.
    const rejected = (line: string) => [damage.message.isSource, damage.user.isSource].some((is) => is?.(line.split(' ')[1]!));
    const held = messagesOf(clean.platform).filter((line) => !rejected(line));
    expect(held).toHaveLength(messagesOf(clean.platform).length - (damage.user.isSource ? 2 : 1));
    expect(messagesOf(damaged.platform)).toEqual(held);
    // Every user is there by name; the rejected one only as the placeholder its messages make, if any.
    const names = (p: PlatformState) => p.users.map((u) => u.name);
    expect(names(damaged.platform).filter((n) => n !== damage.user.name)).toEqual(names(clean.platform).filter((n) => n !== damage.user.name));
    const user = damaged.platform.users.find((u) => u.name === damage.user.name);
    if (kind !== 'discord' && user) expect(user.source).toMatchObject({ userKind: 'placeholder' });
  }, 120_000);
});
