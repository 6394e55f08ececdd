import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const pipeline = (mode: string) => `name: upd
options: { chunkRecords: 10, concurrency: 1, mode: ${mode} }
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false }, properties: { team: team } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, displayName: title, members: { field: members, split: "|" } }
  messages:
    source: { path: messages.csv }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author }
`;

const users = (ann: string) => `id,username,display,team\nu0,upd-ann,${ann},red\nu1,upd-bob,Bob,blue\n`;
const channels = (general: string) => `key,name,title,members\nc0,upd-general,${general},upd-ann|upd-bob\nc1,upd-random,Random,upd-ann|upd-bob\n`;
const messages = `id,channel,author,text\n${Array.from({ length: 40 }, (_, i) => `m${i},c${i % 2},upd-${i % 3 ? 'ann' : 'bob'},text ${i}`).join('\n')}\n`;

async function platformNames() {
  const ann = (await all(f.client.users.list({ name: 'upd-ann' })))[0]!;
  const general = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'upd-general')!;
  return { ann: ann.displayName, general: general.displayName, annTeam: ann.properties?.team };
}

describe('records changed in the source since they were imported', () => {
  it('insert mode reports them changed and leaves the platform as it was; upsert mode patches them and counts them updated, also when resumed', async () => {
    const dir = join(f.dir, 'updates');
    await writeInput(dir, 'users.csv', users('Ann'));
    await writeInput(dir, 'channels.csv', channels('General'));
    await writeInput(dir, 'messages.csv', messages);
    const state = join(dir, 'state');
    const insert = await writePipeline(dir, pipeline('insert'));
    expect((await runImport({ config: insert.config, stateDir: state }, { client: f.client })).status).toBe('succeeded');

    await writeInput(dir, 'users.csv', users('Ann Lee'));
    await writeInput(dir, 'channels.csv', channels('General talk'));
    const changed = await runImport({ config: insert.config, stateDir: state, restart: true }, { client: f.client });
    expect(changed.status).toBe('succeeded');
    expect(changed.stages.users).toMatchObject({ read: 2, imported: 1, skipped: 1, changed: 1, updated: 0, jobs: { submitted: 0 } });
    expect(changed.stages.channels).toMatchObject({ read: 2, imported: 1, skipped: 1, changed: 1, updated: 0, jobs: { submitted: 0 } });
    expect(changed.totals).toMatchObject({ changed: 2, updated: 0, balanced: true });
    expect(await platformNames()).toEqual({ ann: 'Ann', general: 'General', annTeam: 'red' });
    const listed = JSON.parse((await readFile(join(changed.runDir, 'changed', 'users.ndjson'), 'utf8')).trim()) as Record<string, unknown>;
    expect(listed).toMatchObject({ stage: 'users', sourceKey: 'u0', line: 2, applied: false, differences: [{ field: 'displayName', platform: 'Ann', source: 'Ann Lee' }] });
    expect(listed.file).toContain('users.csv');

    // Upsert, interrupted in the messages stage and resumed: the counts of users and channels come from the journal.
    const upsert = await writePipeline(dir, pipeline('upsert'));
    const stop = new AbortController();
    const interrupted = await runImport({ config: upsert.config, stateDir: state, restart: true }, {
      client: f.client, signal: stop.signal,
      onProgress: (stage, c) => { if (stage === 'messages' && c.jobs.finished >= 1) stop.abort(new Error('stop')); },
    }).then(() => undefined, (e: unknown) => e);
    expect(interrupted).toBeInstanceOf(Error);
    expect(await platformNames()).toEqual({ ann: 'Ann Lee', general: 'General talk', annTeam: 'red' });
    const resumed = await runImport({ config: upsert.config, stateDir: state }, { client: f.client });
    expect(resumed).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(resumed.stages.users).toMatchObject({ read: 2, imported: 2, updated: 1, changed: 0 });
    expect(resumed.stages.channels).toMatchObject({ read: 2, imported: 2, updated: 1, changed: 0 });
    expect(resumed.totals).toMatchObject({ read: 44, imported: 44, updated: 2, changed: 0, balanced: true });

    // A property dropped from the source is removed on the platform by the merge patch.
    await writeInput(dir, 'users.csv', users('Ann Lee').replace(',red\n', ',\n'));
    const dropped = await runImport({ config: upsert.config, stateDir: state }, { client: f.client });
    expect(dropped.stages.users).toMatchObject({ updated: 1 });
    expect(await platformNames()).toEqual({ ann: 'Ann Lee', general: 'General talk', annTeam: undefined });
  });
});

describe('a message corrected in the source after it was imported', () => {
  it('is not reported as imported: the run\'s verification names it as changed, with its key and line, and the platform keeps the old body', async () => {
    const dir = join(f.dir, 'corrected');
    const pipe = (name: string) => pipeline('insert').replace('name: upd', `name: ${name}`).replaceAll('upd-', 'cor-');
    await writeInput(dir, 'users.csv', users('Ann').replaceAll('upd-', 'cor-'));
    await writeInput(dir, 'channels.csv', channels('General').replaceAll('upd-', 'cor-'));
    await writeInput(dir, 'messages.csv', messages.replaceAll('upd-', 'cor-'));
    const { config } = await writePipeline(dir, pipe('cor'));
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(first.verification?.status).toBe('exact');

    // m7 (line 9) gets a corrected body; the same key makes the platform skip it on the re-run.
    await writeInput(dir, 'messages.csv', messages.replaceAll('upd-', 'cor-').replace('m7,c1,cor-ann,text 7\n', 'm7,c1,cor-ann,text 7 (corrected)\n'));
    const rerun = await runImport({ config, stateDir: state, restart: true, verify: {} }, { client: f.client });
    expect(rerun.verification?.status).toBe('differences');
    const differences = (await readFile(join(rerun.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(differences).toHaveLength(1);
    expect(differences[0]).toMatchObject({ stage: 'messages', kind: 'changed', sourceKey: 'm7', position: { line: 9 }, fields: ['body'] });
    expect(String((differences[0]!.position as { file: string }).file)).toContain('messages.csv');
    const random = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'cor-random')!;
    const bodies = (await all(f.client.channels.messages(random.id, { pageSize: 100 }))).map((m) => m.body);
    expect(bodies).toContain('text 7');
    expect(bodies).not.toContain('text 7 (corrected)');
  });
});

describe('an upsert interrupted after its patches, resumed', () => {
  const prefixed = (text: string) => text.replaceAll('upd-', 'upd2-');
  /** Three users, all renamed by `suffix`: the run can stop after the first patch, in the users stage. */
  const threeUsers = (suffix: string) => `id,username,display,team\n${['ann', 'bob', 'cid'].map((n, i) => `u${i},upd2-${n},${n}${suffix},red`).join('\n')}\n`;
  const verified = { verify: { sample: 0 } } as const;
  async function displayNames() {
    return (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.name.startsWith('upd2-')).map((u) => u.displayName).sort();
  }
  /** An upsert run that dies in the users stage right after its first patch (the next patch throws). */
  async function interruptedAfterPatch(config: Parameters<typeof runImport>[0]['config'], state: string) {
    let patches = 0;
    const users: typeof f.client.users = {
      ...f.client.users,
      update: (...args) => (patches++ === 0 ? f.client.users.update(...args) : Promise.reject(new Error('killed'))),
    };
    const client = new Proxy(f.client, { get: (target, name) => (name === 'users' ? users : Reflect.get(target, name)) });
    await expect(runImport({ config, stateDir: state, ...verified }, { client })).rejects.toThrow('killed');
  }

  it('patches back records whose source change was undone before the resume, and counts each update once', async () => {
    const dir = join(f.dir, 'updates-resumed');
    await writeInput(dir, 'users.csv', threeUsers(''));
    await writeInput(dir, 'channels.csv', prefixed(channels('General')));
    await writeInput(dir, 'messages.csv', prefixed(messages));
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, pipeline('upsert').replace('name: upd', 'name: upd2'));
    expect((await runImport({ config, stateDir: state, ...verified }, { client: f.client })).verification?.status).toBe('exact');

    // The first user patched to "ann 2", the run stopped; the source has the old names again at the resume.
    await writeInput(dir, 'users.csv', threeUsers(' 2'));
    await interruptedAfterPatch(config, state);
    expect(await displayNames()).toEqual(['ann 2', 'bob', 'cid']);
    await writeInput(dir, 'users.csv', threeUsers(''));
    const reverted = await runImport({ config, stateDir: state, ...verified }, { client: f.client });
    expect(reverted).toMatchObject({ attempt: 2, verification: { status: 'exact' } });
    expect(reverted.stages.users).toMatchObject({ read: 3, imported: 3, updated: 1, changed: 0 });
    expect(await displayNames()).toEqual(['ann', 'bob', 'cid']);

    // The same source at the resume: the first attempt's update is counted, and listed, once.
    await writeInput(dir, 'users.csv', threeUsers(' 3'));
    await interruptedAfterPatch(config, state);
    const resumed = await runImport({ config, stateDir: state, ...verified }, { client: f.client });
    expect(resumed).toMatchObject({ attempt: 2, verification: { status: 'exact' } });
    expect(resumed.stages.users).toMatchObject({ read: 3, imported: 3, updated: 3, changed: 0 });
    expect(resumed.totals).toMatchObject({ balanced: true });
    const listed = (await readFile(join(resumed.runDir, 'changed', 'users.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed).toMatchObject(['ann', 'bob', 'cid'].map((n, i) => ({ sourceKey: `u${i}`, applied: true, differences: [{ field: 'displayName', platform: n, source: `${n} 3` }] })));
    expect(await displayNames()).toEqual(['ann 3', 'bob 3', 'cid 3']);
  });
});

describe('a property corrected to null in the source', () => {
  const nullPipeline = `name: upn
options: { mode: upsert }
stages:
  users:
    source: { path: users.ndjson, format: ndjson }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false }, properties: { meta: meta } }
  channels:
    source: { path: channels.ndjson, format: ndjson }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, members: members, properties: { meta: meta } }
  messages:
    source: { path: messages.ndjson, format: ndjson }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author, properties: { meta: meta } }
`;
  const ndjson = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
  async function writeSource(dir: string, meta: (n: number) => object) {
    await writeInput(dir, 'users.ndjson', ndjson([{ id: 'u1', username: 'upn-ann', display: 'Ann', meta: meta(1) }]));
    await writeInput(dir, 'channels.ndjson', ndjson([{ key: 'c1', name: 'upn-general', members: ['upn-ann'], meta: meta(2) }]));
    await writeInput(dir, 'messages.ndjson', ndjson([{ id: 'm1', channel: 'c1', author: 'upn-ann', text: 'one', meta: meta(3) }]));
  }

  it('is patched away once, then held: the platform cannot hold a null a merge patch sets, and verification takes it as absent', async () => {
    const dir = join(f.dir, 'null-property');
    const state = join(dir, 'state');
    await writeSource(dir, (n) => ({ a: n, nested: { deep: true, keep: n } }));
    const { config } = await writePipeline(dir, nullPipeline);
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    await writeSource(dir, (n) => ({ a: null, nested: { deep: null, keep: n } }));
    const corrected = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(corrected.totals).toMatchObject({ read: 3, imported: 3, updated: 3, balanced: true });
    expect(corrected.verification?.status).toBe('exact');
    const ann = (await all(f.client.users.list({ name: 'upn-ann' })))[0]!;
    expect(ann.properties?.meta).toEqual({ nested: { keep: 1 } });

    const again = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(again.totals).toMatchObject({ read: 3, imported: 3, updated: 0, balanced: true });
    expect(again.verification?.status).toBe('exact');
  });
});

describe('names moved between records by an upsert', () => {
  const renames = () => pipeline('upsert').replace('name: upd', 'name: upr');
  const csvUsers = (rows: string[]) => `id,username,display,team\n${rows.join('\n')}\n`;
  const csvChannels = (rows: string[]) => `key,name,title,members\n${rows.join('\n')}\n`;

  it('lets a record take the name an earlier record of the stage was just patched away from, and rejects a new record naming a patched record\'s new name without an upload', async () => {
    const dir = join(f.dir, 'renames');
    await writeInput(dir, 'users.csv', csvUsers(['u0,upr-ann,Ann,red', 'u1,upr-bob,Bob,red']));
    await writeInput(dir, 'channels.csv', csvChannels(['c0,upr-one,One,upr-ann|upr-bob', 'c1,upr-two,Two,upr-ann']));
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,upr-ann,hi\n');
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, renames());
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    // u0 and c0 take new names; u1 and c1 then take the names they left; u9 (new) names u0's new name.
    await writeInput(dir, 'users.csv', csvUsers(['u0,upr-ann2,Ann,red', 'u1,upr-ann,Bob,red', 'u9,upr-ann2,Nine,red']));
    await writeInput(dir, 'channels.csv', csvChannels(['c0,upr-one2,One,upr-ann2|upr-ann', 'c1,upr-one,Two,upr-ann2']));
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,upr-ann2,hi\n');
    const moved = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(moved.stages.users).toMatchObject({ read: 3, imported: 2, updated: 2, rejected: 1, refused: 0, jobs: { submitted: 0 } });
    expect(moved.stages.channels).toMatchObject({ read: 2, imported: 2, updated: 2, rejected: 0 });
    expect(moved.verification?.status).toBe('exact');
    const rejects = (await readFile(join(moved.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ message: string }> });
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ key: 'u9' });
    expect(rejects[0]!.reasons[0]!.message).toContain('is the name of source key u0, an earlier record of this stage');
    const names = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.name.startsWith('upr-')).map((u) => `${String(u.properties?.chatportKey)}=${u.name}`).sort();
    expect(names).toEqual(['u0=upr-ann2', 'u1=upr-ann']);
  });

  it('rejects two users swapping names, explaining the rename instead of advising onExisting: match (which would merge two people)', async () => {
    const dir = join(f.dir, 'swap');
    const swap = pipeline('upsert').replace('name: upd', 'name: ups');
    await writeInput(dir, 'users.csv', csvUsers(['u0,ups-ann,Ann,red', 'u1,ups-bob,Bob,red']));
    await writeInput(dir, 'channels.csv', csvChannels(['c0,ups-one,One,ups-ann|ups-bob']));
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,ups-ann,hi\n');
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, swap);
    expect((await runImport({ config, stateDir: state }, { client: f.client })).status).toBe('succeeded');

    await writeInput(dir, 'users.csv', csvUsers(['u0,ups-bob,Ann,red', 'u1,ups-ann,Bob,red']));
    await writeInput(dir, 'channels.csv', csvChannels(['c0,ups-one,One,ups-ann|ups-bob']));
    const swapped = await runImport({ config, stateDir: state, verify: { sample: 0 } }, { client: f.client });
    expect(swapped.stages.users).toMatchObject({ read: 2, rejected: 2, refused: 0, updated: 0, jobs: { submitted: 0 } });
    const rejects = (await readFile(join(swapped.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; key: string; reasons: Array<{ message: string }> });
    const users = rejects.filter((r) => r.stage === 'users');
    expect(users.map((r) => r.key)).toEqual(['u0', 'u1']);
    expect(users[0]!.reasons[0]!.message).toContain("is still held on the platform by source key u1, which the source renames to 'ups-ann'");
    for (const r of users) expect(r.reasons[0]!.message).not.toContain('onExisting');
  });
});

describe('a correction no update can apply', () => {
  it('rejects a channel whose type changed and a message whose author changed, naming the field, instead of counting them imported', async () => {
    const dir = join(f.dir, 'fixed-fields');
    const typed = pipeline('upsert').replace('name: upd', 'name: upf').replace('type: { const: PUBLIC }', 'type: kind');
    const channelsOf = (kind: string) => `key,name,title,members,kind\nc0,upf-general,General,upf-ann|upf-bob,${kind}\nc1,upf-random,Random,upf-ann|upf-bob,PUBLIC\n`;
    const messagesBy = (author: string) => `id,channel,author,text\nm0,c0,${author},hello\nm1,c1,upf-ann,world\n`;
    await writeInput(dir, 'users.csv', users('Ann').replaceAll('upd-', 'upf-'));
    await writeInput(dir, 'channels.csv', channelsOf('PUBLIC'));
    await writeInput(dir, 'messages.csv', messagesBy('upf-ann'));
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, typed);
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    await writeInput(dir, 'channels.csv', channelsOf('PRIVATE'));
    await writeInput(dir, 'messages.csv', messagesBy('upf-bob'));
    const corrected = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(corrected.stages.channels).toMatchObject({ read: 2, imported: 1, updated: 0, rejected: 1 });
    expect(corrected.stages.messages).toMatchObject({ read: 2, imported: 1, updated: 0, rejected: 1, jobs: { submitted: 0 } });
    const rejects = (await readFile(join(corrected.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ field: string; found: string; message: string }> });
    expect(rejects.map((r) => [r.key, r.reasons.map((x) => [x.field, x.found])])).toEqual([['c0', [['type', '"PRIVATE"']]], ['m0', [['user', '"upf-bob"']]]]);
    // Deleting it on the platform and importing it again would create nothing: the platform keeps its key taken.
    for (const r of rejects) expect(r.reasons[0]!.message).toMatch(/keep it in the source, or give the record another source key \(deleted on the platform, it keeps its idempotency key taken: imported again under it, nothing is created\)$/);
    const general = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'upf-general')!;
    expect(general.type).toBe('PUBLIC');
  });
});

describe('a message the source moved to another channel', () => {
  it('is rejected naming both channels, not sent (the platform would take it for a retry of its key) nor counted imported', async () => {
    const dir = join(f.dir, 'moved-message');
    const moving = pipeline('upsert').replace('name: upd', 'name: upm');
    const messagesIn = (m1: string, more = '') => `id,channel,author,text\nm0,c0,upm-ann,hello\nm1,${m1},upm-bob,world\nm2,c1,upm-ann,again\n${more}`;
    await writeInput(dir, 'users.csv', users('Ann').replaceAll('upd-', 'upm-'));
    await writeInput(dir, 'channels.csv', channels('General').replaceAll('upd-', 'upm-'));
    await writeInput(dir, 'messages.csv', messagesIn('c1'));
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, moving);
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    await writeInput(dir, 'messages.csv', messagesIn('c0', 'm3,c1,upm-bob,new\n'));
    const moved = await runImport({ config, stateDir: state }, { client: f.client });
    expect(moved.stages.messages).toMatchObject({ read: 4, imported: 3, rejected: 1, jobs: { submitted: 1 } });
    const rejects = (await readFile(join(moved.runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { key: string; reasons: Array<{ field: string; found: string; message: string }> });
    expect(rejects.map((r) => [r.key, r.reasons.map((x) => [x.field, x.found])])).toEqual([['m1', [['channel', '"c0"']]]]);
    const byName = new Map((await all(f.client.channels.list({ pageSize: 100 }))).map((c) => [c.name, c.id]));
    const [general, random] = [byName.get('upm-general')!, byName.get('upm-random')!];
    const held = (await all(f.client.channels.messages(random, { pageSize: 100 }))).find((m) => m.properties?.chatportKey === 'm1')!;
    expect(rejects[0]!.reasons[0]!.message).toContain(`holds message ${held.id} of this key in channel ${random} (source key c1), and the source names channel ${general} (source key c0)`);
    expect((await all(f.client.channels.messages(random, { pageSize: 100 }))).map((m) => m.body)).toEqual(['world', 'again', 'new']);
  });
});

describe('a channel renamed whose source gives no display name', () => {
  it('shows its new name: the display name is compared as its default, the name, by the upsert and by verification', async () => {
    const dir = join(f.dir, 'renamed-channel');
    const noTitle = pipeline('upsert').replace('name: upd', 'name: upc').replace('displayName: title, ', '');
    const channelsNamed = (name: string) => `key,name,title,members\nc0,${name},,upc-ann|upc-bob\nc1,upc-random,,upc-ann|upc-bob\n`;
    await writeInput(dir, 'users.csv', users('Ann').replaceAll('upd-', 'upc-'));
    await writeInput(dir, 'channels.csv', channelsNamed('upc-general'));
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,upc-ann,hello\n');
    const state = join(dir, 'state');
    const { config } = await writePipeline(dir, noTitle);
    expect((await runImport({ config, stateDir: state, verify: {} }, { client: f.client })).verification?.status).toBe('exact');

    await writeInput(dir, 'channels.csv', channelsNamed('upc-talk'));
    const renamed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(renamed.stages.channels).toMatchObject({ read: 2, imported: 2, updated: 1 });
    expect(renamed.verification?.status).toBe('exact');
    const talk = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'upc-talk')!;
    expect(talk.displayName).toBe('upc-talk');
    const listed = JSON.parse((await readFile(join(renamed.runDir, 'changed', 'channels.ndjson'), 'utf8')).trim()) as { differences: Array<{ field: string }> };
    expect(listed.differences.map((d) => d.field)).toEqual(['name', 'displayName']);

    // A display name the platform holds other than the name, for a source that gives none, is a difference.
    await f.client.channels.update(talk.id, { displayName: 'Old talk' });
    const { differences } = await runVerify({ config }, { client: f.client });
    expect(differences).toMatchObject([{ kind: 'changed', stage: 'channels', sourceKey: 'c0', fields: ['displayName'] }]);
  });
});
