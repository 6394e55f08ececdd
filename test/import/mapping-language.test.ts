import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { chatportProcess } from '../helpers/cli-process.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** A room dump with codes: room types c/p/d, message subtypes, authors by user id, names needing care. */
async function writeCodedDump(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.csv', ['uid,handle,full', `1,${prefix}Ann,Ann A`, `2,${prefix}ann,Ann B`, `3,${prefix}José,José C`, `4, ${prefix}Bo Lee ,Bo L`, ''].join('\n'));
  await writeInput(dir, 'rooms.csv', ['rid,t,title,members', `r1,c,${prefix}General,1|2|3`, `r2,p,${prefix}Secret,1|4`, `r3,d,,2|3`, ''].join('\n'));
  await writeInput(
    dir,
    'posts.ndjson',
    [
      { id: 'p1', rid: 'r1', uid: 1, kind: '', text: 'hello' },
      { id: 'p2', rid: 'r1', uid: 2, kind: 'uj', text: 'ann joined' },
      { id: 'p3', rid: 'r2', uid: 4, kind: '', text: 'secret hi' },
      { id: 'p4', rid: 'r3', uid: 3, kind: '', text: 'direct hi' },
      { id: 'p5', rid: 'r1', uid: 3, kind: 'rm', text: 'removed' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
}

const codedPipeline = (name: string) => `name: ${name}
stages:
  users:
    source: { path: users.csv }
    key: uid
    mapping:
      name: { field: handle, trim: true, asName: true, unique: suffix }
      displayName: full
      isGuest: { const: false }
  channels:
    source: { path: rooms.csv }
    key: rid
    mapping:
      type: { field: t, map: { c: PUBLIC, p: PRIVATE, d: DIRECT } }
      name: { field: title, asName: true, when: { field: t, notEquals: d } }
      displayName: { field: title, when: { field: t, notEquals: d } }
      members: { field: members, split: "|", ref: user }
  messages:
    source: { path: posts.ndjson }
    key: id
    channel: rid
    mapping:
      type: { field: kind, map: { uj: SYSTEM_TEXT, ul: SYSTEM_TEXT }, default: TEXT }
      user: { field: uid, ref: user, when: { field: kind, notIn: [uj, ul] } }
      body: text
      properties:
        subtype: { field: kind, when: { field: kind, empty: false } }
`;

describe('the mapping language against the platform', () => {
  it('value maps, conditions, normalised unique names and user references decide what the platform holds', async () => {
    const dir = join(f.dir, 'coded');
    await writeCodedDump(dir, 'ml');
    // "rm" is not in the subtype map and the type map has a default, so it is TEXT; every other code is mapped.
    const { config } = await writePipeline(dir, codedPipeline('coded-dump'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 4, imported: 4, rejected: 0 });
    expect(report.stages.channels).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, rejected: 0 });
    expect(report.verification?.status).toBe('exact');

    const users = (await all(f.client.users.list())).filter((u) => u.properties?.chatportPipeline === 'coded-dump');
    expect(users.map((u) => [u.properties!.chatportKey, u.name]).sort()).toEqual([['1', 'mlann'], ['2', 'mlann-2'], ['3', 'mljosé'], ['4', 'mlbo-lee']]);

    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'coded-dump');
    const byKey = new Map(channels.map((c) => [c.properties!.chatportKey, c]));
    expect(byKey.get('r1')).toMatchObject({ type: 'PUBLIC', name: 'mlgeneral', displayName: 'mlGeneral' });
    expect(byKey.get('r2')).toMatchObject({ type: 'PRIVATE', name: 'mlsecret' });
    expect(byKey.get('r3')!.type).toBe('DIRECT');
    expect(byKey.get('r3')!.members!.map((m) => m.name).sort()).toEqual(['mlann-2', 'mljosé']);

    const general = await all(f.client.channels.messages(byKey.get('r1')!.id, { pageSize: 100 }));
    const shown = general.sort((a, b) => compareInt64(a.id, b.id)).map((m) => [m.type, m.body, m.user?.name ?? null, m.properties?.subtype ?? null]);
    expect(shown).toEqual([
      ['TEXT', 'hello', 'mlann', null],
      ['SYSTEM_TEXT', 'ann joined', null, 'uj'],
      ['TEXT', 'removed', 'mljosé', 'rm'],
    ]);
  });

  it('`ref: user` names the user the platform holds for the key, when `unique: suffix` numbering moved since (a user added before it)', async () => {
    const dir = join(f.dir, 'coded-shift');
    await writeCodedDump(dir, 'sh');
    const { config } = await writePipeline(dir, codedPipeline('coded-shift'));
    await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    // A user named like user 1 comes first now: the source numbers 0 → shann, 1 → shann-2, 2 → shann-3, while
    // the platform holds 1 as shann and 2 as shann-2. A new post by 1 must be by shann (1), never by shann-2 (2).
    await writeInput(dir, 'users.csv', ['uid,handle,full', '0,shANN,Ann Z', '1,shAnn,Ann A', '2,shann,Ann B', '3,shJosé,José C', '4, shBo Lee ,Bo L', ''].join('\n'));
    const { appendFile } = await import('node:fs/promises');
    await appendFile(join(dir, 'posts.ndjson'), `${JSON.stringify({ id: 'p6', rid: 'r1', uid: 1, kind: '', text: 'by ann a, again' })}\n`);
    const { config: again } = await writePipeline(dir, codedPipeline('coded-shift'));
    const report = await runImport({ config: again, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6, rejected: 0 });
    const general = (await all(f.client.channels.list())).find((c) => c.properties?.chatportPipeline === 'coded-shift' && c.properties.chatportKey === 'r1')!;
    const posts = await all(f.client.channels.messages(general.id, { pageSize: 100 }));
    expect(posts.find((m) => m.body === 'by ann a, again')?.user?.name).toBe('shann');
    // Messages and channels verify as the platform holds them; only the users' names differ from the source.
    expect(report.verification).toMatchObject({ stages: { messages: { expected: 6, verified: 6 }, channels: { verified: 3 } } });
  });

  it('`unique: suffix` numbers a name that came from `default` too (guest, guest-2), and one written like it later', async () => {
    const dir = join(f.dir, 'unique-default');
    await writeInput(dir, 'users.csv', 'uid,handle,full\n1,,Ann\n2,,Bo\n3,UD-Guest,Cy\n');
    const { config } = await writePipeline(dir, `name: unique-default
stages:
  users:
    source: { path: users.csv }
    key: uid
    mapping:
      name: { field: handle, asName: true, unique: suffix, default: ud-guest }
      displayName: full
      isGuest: { const: true }
`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.properties?.chatportPipeline === 'unique-default');
    expect(users.map((u) => [u.displayName, u.name]).sort()).toEqual([['Ann', 'ud-guest'], ['Bo', 'ud-guest-2'], ['Cy', 'ud-guest-3']]);
  });

  it('a code the map lacks, and a reference to a user the users stage did not import, are rejected with file, line and field', async () => {
    const dir = join(f.dir, 'coded-bad');
    await writeInput(dir, 'users.csv', 'uid,handle,full\n1,mlbad-ann,Ann\n');
    await writeInput(dir, 'rooms.csv', 'rid,t,title,members\nr1,x,mlbad-room,1\nr2,c,mlbad-ok,1|9\nr3,c,mlbad-fine,1\n');
    await writeInput(dir, 'posts.ndjson', '{"id":"p1","rid":"r3","uid":1,"kind":"","text":"hi"}\n');
    const { config } = await writePipeline(dir, codedPipeline('coded-bad'));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.channels).toMatchObject({ read: 3, imported: 1, rejected: 2 });
    const { readFile } = await import('node:fs/promises');
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { line: number; file: string; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.file.endsWith('rooms.csv'), r.line, r.reasons.map((x) => x.message)])).toEqual([
      [true, 2, ['type (from source field "t"): expected one of the values the map lists ("c", "p", "d"), found "x"']],
      [true, 3, ['members.1 (from source field "members"): expected the key of a user that the users stage imported, found "9"']],
    ]);
  });
});

describe('trial runs', () => {
  async function writeChannels(dir: string, prefix: string, channels: number, perChannel: number) {
    await writeInput(dir, 'users.csv', `id,username,display\n1,${prefix}a,A\n2,${prefix}b,B\n`);
    await writeInput(dir, 'channels.csv', ['key,name,members', ...Array.from({ length: channels }, (_, i) => `c${i},${prefix}c${i},${prefix}a|${prefix}b`), ''].join('\n'));
    const messages = ['id,channel,author,text'];
    for (let m = 0; m < perChannel; m++) for (let c = 0; c < channels; c++) messages.push(`m${c}-${m},c${c},${prefix}${m % 2 ? 'b' : 'a'},message ${m} of c${c}`);
    await writeInput(dir, 'messages.csv', `${messages.join('\n')}\n`);
  }
  const pipeline = (name: string) => `name: ${name}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

  it('--limit takes the first n records of each stage, counts the rest as skipped, and verifies exact against that part', async () => {
    const dir = join(f.dir, 'limit');
    await writeChannels(dir, 'lim', 4, 5);
    const { config } = await writePipeline(dir, pipeline('trial-limit'));
    config.trial = { limit: 3 };
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.trial).toEqual({ limit: 3, description: 'the first 3 records of each stage' });
    expect(report.stages.users).toMatchObject({ read: 2, imported: 2, skipped: 0 });
    expect(report.stages.channels).toMatchObject({ read: 4, imported: 3, skipped: 1 });
    // The first three messages are m0 of c0, c1, c2: channels the trial imported.
    expect(report.stages.messages).toMatchObject({ read: 20, imported: 3, skipped: 17, rejected: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification?.status).toBe('exact');
    const names = (await all(f.client.channels.list())).map((c) => c.name).filter((n) => n?.startsWith('lim'));
    expect(names.sort()).toEqual(['limc0', 'limc1', 'limc2']);
  });

  it('--sample n keeps n channels with all their messages and every user; the pick is the same on every run', async () => {
    const dir = join(f.dir, 'sample');
    await writeChannels(dir, 'smp', 10, 3);
    const { config } = await writePipeline(dir, pipeline('trial-sample'));
    config.trial = { sample: 2 };
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 2, imported: 2 });
    expect(report.stages.channels).toMatchObject({ read: 10, imported: 2, skipped: 8 });
    expect(report.stages.messages).toMatchObject({ read: 30, imported: 6, skipped: 24, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const picked = (await all(f.client.channels.list())).filter((c) => c.name?.startsWith('smp'));
    for (const channel of picked) expect(await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).toHaveLength(3);

    await writeChannels(join(f.dir, 'sample-again'), 'smp', 10, 3);
    const again = await writePipeline(join(f.dir, 'sample-again'), pipeline('trial-sample-2'));
    again.config.trial = { sample: 2 };
    const dry = await runImport({ config: again.config, stateDir: join(f.dir, 'sample-again', 'state'), mode: 'dry-run' }, {});
    expect(dry.stages.channels).toMatchObject({ read: 10, skipped: 8 });
    const pickedAgain = new Set<string>();
    const { readdir, readFile } = await import('node:fs/promises');
    const chunksDir = join(dry.runDir, 'chunks', 'channels');
    for (const file of await readdir(chunksDir)) for (const item of JSON.parse(await readFile(join(chunksDir, file), 'utf8')) as Array<{ name: string }>) pickedAgain.add(item.name);
    expect([...pickedAgain].sort()).toEqual(picked.map((c) => c.name).sort());
  });

  it('a trial after a run that took the whole input verifies the whole input: the platform holds that run\'s records beyond the trial', async () => {
    const dir = join(f.dir, 'trial-after-whole');
    await writeChannels(dir, 'taw', 4, 3);
    const { config, path } = await writePipeline(dir, pipeline('trial-after-whole'));
    const state = join(dir, 'state');
    const whole = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(whole.verification?.status).toBe('exact');
    config.trial = { limit: 2 };
    const trial = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(trial.stages.messages).toMatchObject({ read: 12, imported: 2, skipped: 10 });
    expect(trial.verification).toMatchObject({ status: 'exact', stages: { users: { expected: 2 }, channels: { expected: 4 }, messages: { expected: 12 } } });

    const verified = await chatportProcess(['verify', path, '--state', state, '--json'], f.env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ status: 'exact', stages: { messages: { expected: 12, verified: 12 } } });
  }, 60_000);

  it('a resumed run must keep the trial it started with', async () => {
    const dir = join(f.dir, 'trial-resume');
    await writeChannels(dir, 'trs', 2, 2);
    const { config } = await writePipeline(dir, pipeline('trial-resume'));
    const state = join(dir, 'state');
    config.trial = { limit: 1 };
    await runImport({ config, stateDir: state }, { client: f.client });
    // Mark the run unfinished, as a killed process leaves it.
    const { readFile, writeFile } = await import('node:fs/promises');
    const journal = join(state, 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    await writeFile(journal, `${lines.slice(0, -1).join('\n')}\n`);
    config.trial = undefined;
    await expect(runImport({ config, stateDir: state }, { client: f.client })).rejects.toThrow(
      'the unfinished run was started with --limit 1, this one has no --limit or --sample: resume it with the same flags, or pass --restart to start a new run',
    );
  });
});

describe('bodies over the platform\'s limit', () => {
  const longText = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n');
  const write = async (dir: string, prefix: string) => {
    await writeInput(dir, 'users.csv', `id,username,display\n1,${prefix}a,A\n`);
    await writeInput(dir, 'channels.csv', `key,name,members\nc1,${prefix}room,${prefix}a\n`);
    const rows = [
      { id: 'm1', channel: 'c1', author: `${prefix}a`, text: 'before' },
      { id: 'm2', channel: 'c1', author: `${prefix}a`, text: longText(1300) },
      { id: 'm3', channel: 'c1', author: `${prefix}a`, text: 'after' },
    ];
    await writeInput(dir, 'messages.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  };
  const pipeline = (name: string, option: string) => `name: ${name}
options: { chunkRecords: 2${option} }
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.ndjson }, key: id, channel: channel, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

  it('are rejected by default, naming the length', async () => {
    const dir = join(f.dir, 'long-reject');
    await write(dir, 'lr');
    const { config } = await writePipeline(dir, pipeline('long-reject', ''));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, rejected: 1 });
  });

  it('longBodies: split sends consecutive parts in place, in order, each marked, joining to the whole text; verified exact', async () => {
    const dir = join(f.dir, 'long-split');
    await write(dir, 'ls');
    const { config } = await writePipeline(dir, pipeline('long-split', ', longBodies: split'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 10 } }, { client: f.client });
    // A record split into n parts counts n records read, as in the Slack migration.
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const [room] = (await all(f.client.channels.list())).filter((c) => c.name === 'lsroom');
    const messages = (await all(f.client.channels.messages(room!.id))).sort((a, b) => compareInt64(a.id, b.id));
    expect(messages.map((m) => m.properties?.chatportPart ?? null)).toEqual([null, { index: 1, count: 3 }, { index: 2, count: 3 }, { index: 3, count: 3 }, null]);
    expect(messages.slice(1, 4).map((m) => m.body).join('')).toBe(longText(1300));
    expect(messages.every((m) => (m.body ?? '').length <= 40_000)).toBe(true);
  });
});
