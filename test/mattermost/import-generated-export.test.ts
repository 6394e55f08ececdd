import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMattermostExport } from '../../fixtures/mattermost/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type Json, type PlatformChannel, type PlatformState } from '../slack-migration/support.js';

/**
 * A generated Mattermost bulk export (every edge case of its generator) imported into the sandbox and read
 * back through the API: users (with a placeholder), channels by type, memberships, posts per channel in
 * order, replies in their post's reply thread, converted text and kept facts. The expectations come from
 * the JSONL read with plain JSON.parse.
 */
interface Post extends Json {
  user: string;
  message: string;
  create_at: number;
  replies?: Post[];
}

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;
let lines: Array<Json & { type: string }>;

beforeAll(async () => {
  f = await startImportFixture();
  const file = join(f.dir, 'export.jsonl');
  await generateMattermostExport({ out: file, seed: 9, messages: 1500, longEvery: 700 });
  lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Json & { type: string });
  const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${file}\noptions: { chunkRecords: 300, concurrency: 3 }\n`);
  report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  platform = await readPlatform(f.client);
}, 120_000);
afterAll(() => f?.close());

const of = <T>(type: string) => lines.filter((l) => l.type === type).map((l) => l[type] as T);
const dm = (members: string[]) => `dm/${[...new Set(members)].sort().join(',')}`;
const channelOf = (id: string): PlatformChannel => platform.channels.find((c) => c.slackId === id)!;
const partsOf = (body: string) => Math.max(1, Math.ceil(body.length / 40_000));

function expected() {
  const channels = new Map<string, string[]>();
  const threads = new Map<string, string[]>();
  const seen = new Set<string>();
  const idOf = (channel: string, p: Post) => `${channel}/${p.create_at}/${p.user}`;
  for (const line of lines) {
    if (line.type !== 'post' && line.type !== 'direct_post') continue;
    const post = line[line.type] as Post & { team?: string; channel?: string; channel_members?: string[] };
    const channel = post.channel_members ? dm(post.channel_members) : `${post.team}/${post.channel}`;
    const root = idOf(channel, post);
    const key = `${root}/${post.message}`;
    if (seen.has(key)) continue; // the same post twice: a duplicate
    seen.add(key);
    channels.set(channel, [...(channels.get(channel) ?? []), ...Array.from({ length: partsOf(post.message) }, () => root)]);
    for (const reply of post.replies ?? []) threads.set(root, [...(threads.get(root) ?? []), idOf(channel, reply)]);
  }
  return { channels, threads };
}

/** `<channel>/<create_at>/<user>` of a platform message (its id without the text hash). */
const shortId = (source: Json) => String(source.id).replace(/\/[0-9a-f]{8}$/, '');

describe('a generated Mattermost bulk export imported through the pipeline', () => {
  it('balances and verifies: the post written twice counted as a duplicate, nothing rejected', () => {
    expect(report.status).toBe('succeeded');
    expect(report.totals).toMatchObject({ rejected: 0, pending: 0, balanced: true });
    expect(report.stages.messages!.duplicates).toBe(1);
    expect(report.verification?.status).toBe('exact');
  });

  it('holds every user, a placeholder for the author the export lacks; deleted users, bots and guests marked', () => {
    const names = of<Json>('user').map((u) => String(u.username));
    expect(platform.users.map((u) => String(u.source.id)).sort()).toEqual([...names, 'ghost.user'].sort());
    const source = (id: string) => platform.users.find((u) => u.source.id === id)!;
    expect(source('ghost.user').source).toMatchObject({ userKind: 'placeholder', placeholder: { reason: 'author of a post' } });
    expect(source('former.colleague').source).toMatchObject({ deleted: true });
    expect(source('deploy-bot').source).toMatchObject({ userKind: 'bot' });
    const guest = of<Json>('user').find((u) => String(u.roles).includes('system_guest'))!;
    expect(source(String(guest.username))).toMatchObject({ isGuest: true, source: { guest: 'system_guest' } });
  });

  it('makes channels of the right types, names unique over teams, members from the users\' memberships', () => {
    const teamChannels = of<Json>('channel');
    const pair = of<{ members: string[] }>('direct_channel')[0]!.members;
    const group = of<{ members: string[] }>('direct_channel')[1]!.members;
    expect(channelOf(dm(pair)).type).toBe('DIRECT');
    expect(channelOf(dm(group))).toMatchObject({ type: 'PRIVATE', source: { typeChange: { from: 'DIRECT', to: 'PRIVATE' } } });
    const names = teamChannels.map((c) => channelOf(`${c.team}/${c.name}`).name);
    expect(new Set(names).size).toBe(teamChannels.length);
    expect(channelOf('eng/secret').type).toBe('PRIVATE');
    expect(channelOf('eng/old-stuff').source).toMatchObject({ archived: true });
    const devMembers = of<{ username: string; teams: Array<{ name: string; channels: Array<{ name: string }> }> }>('user')
      .filter((u) => u.teams.some((t) => t.name === 'eng' && t.channels.some((c) => c.name === 'backend')))
      .map((u) => platform.users.find((p) => p.source.id === u.username)!.name);
    expect(channelOf('eng/backend').members).toEqual(devMembers.sort());
  });

  it('puts every post in its channel in the export\'s order, and replies into their post\'s reply thread', () => {
    const want = expected();
    for (const [id, ids] of want.channels) expect({ id, ids: channelOf(id).messages.map((m) => shortId(m.source)) }).toEqual({ id, ids });
    const held = new Map<string, string[]>();
    for (const c of platform.channels) for (const [root, t] of c.threads) held.set(root.replace(/\/[0-9a-f]{8}$/, ''), t.replies.map((m) => shortId(m.source)));
    expect(held).toEqual(want.threads);
    expect(want.threads.size).toBeGreaterThan(20);
  });

  it('turns mentions and channel links into platform names and keeps reactions, files, pins, edits and cards', () => {
    const messages = platform.channels.flatMap((c) => [...c.messages, ...[...c.threads.values()].flatMap((t) => t.replies)]);
    const posts = lines.filter((l) => l.type === 'post').map((l) => l.post as Post & { team: string; channel: string });
    const find = (p: Post & { channel: string; team: string }) => messages.find((m) => shortId(m.source) === `${p.team}/${p.channel}/${p.create_at}/${p.user}`)!;
    const mention = posts.find((p) => p.message.startsWith('hey @'))!;
    const who = /@([\w.-]+),/.exec(mention.message)![1]!;
    expect(find(mention).body).toBe(`hey @${platform.users.find((u) => u.source.id === who)!.name}, look at #${channelOf('eng/backend').name} **now** :smile:`);
    expect(find(mention).source.mentions).toEqual({ users: [who] });
    const reacted = find(posts.find((p) => (p.reactions as unknown[]).length > 0)!);
    expect(reacted.source.reactions).toEqual([expect.objectContaining({ emoji: '+1', count: 2 }), expect.objectContaining({ emoji: 'tada', count: 1 })]);
    const attached = find(posts.find((p) => (p.attachments as unknown[]).length > 0)!);
    expect(attached.body).toContain('[file: report.pdf] data/attachments/report.pdf');
    expect(find(posts.find((p) => p.is_pinned === true)!).source.pinned).toBe(true);
    expect(find(posts.find((p) => Number(p.edit_at) > 0)!).source.edited).toEqual({ time: expect.stringMatching(/Z$/) });
    const card = find(posts.find((p) => p.message === '')!);
    expect(card.body).toMatch(/^Build \d+ passed$/);
    expect(card.source.embeds).toEqual([expect.objectContaining({ title: expect.stringMatching(/^Build/) })]);
    const system = find(posts.find((p) => p.type === 'system_join_channel')!);
    expect(system).toMatchObject({ type: 'SYSTEM_TEXT', source: { subtype: 'system_join_channel' } });
    const long = posts.find((p) => p.message.length > 40_000)!;
    expect(messages.filter((m) => shortId(m.source) === `${long.team}/${long.channel}/${long.create_at}/${long.user}`).map((m) => m.source.part)).toEqual([{ index: 1, count: 2 }, { index: 2, count: 2 }]);
  });
});
