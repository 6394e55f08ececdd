import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

// -0 travels as 0; a double of 16+ digits travels as digits the platform's copy reads back as a bigint.
const pipeline = (mode: string) => `name: wirev
options: { chunkRecords: 10, concurrency: 1, mode: ${mode} }
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: name, displayName: name, isGuest: { const: false }, properties: { n: { field: n, type: number } } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, members: { const: [wv-b1] } }
  messages:
    source: { path: messages.ndjson }
    key: id
    channel: ch
    mapping: { type: { const: TEXT }, body: t, user: a, properties: { geo: { lat: lat }, n: { field: n, type: number } } }
`;

// Written with an exponent: a whole number in plain digits that its double changes is refused (an id), these round as floats.
const users = 'id,name,n\n1,wv-b1,1.23456789012345678e17\n2,wv-b2,-0\n3,wv-b3,9007199254740993e0\n7,wv-b7,100000000000000000000\n8,wv-b8,42\n';
const channels = 'key,name\nc1,wv-c1\n';
// -0.0 is what Python's json.dumps writes for a negative zero.
const messages = [
  '{"id":"m1","ch":"c1","a":"wv-b1","t":"hello","lat":-0.0}',
  '{"id":"m2","ch":"c1","a":"wv-b1","t":"hello2","lat":1.5,"n":"1.23456789012345678e17"}',
  '{"id":"m3","ch":"c1","a":"wv-b1","t":"hello3","lat":0,"n":"100000000000000000000"}',
].join('\n');

describe('values whose JSON on the wire differs from the source\'s in memory (-0, doubles of 16+ digits)', () => {
  const dir = () => join(f.dir, 'wire-values');
  const state = () => join(dir(), 'state');
  const none = { missing: 0, extra: 0, misplaced: 0, 'out-of-order': 0, changed: 0 };

  it('verify exact: users, and messages read in full', async () => {
    await writeInput(dir(), 'users.csv', users);
    await writeInput(dir(), 'channels.csv', channels);
    await writeInput(dir(), 'messages.ndjson', `${messages}\n`);
    const { config } = await writePipeline(dir(), pipeline('insert'));
    const first = await runImport({ config, stateDir: state(), verify: { sample: 10 } }, { client: f.client });
    expect(first.status).toBe('succeeded');
    expect(first.verification).toMatchObject({ contentChecked: 3, stages: { users: { verified: 5, differences: none }, messages: { verified: 3, differences: none } } });
    expect(first.verification?.status).toBe('exact');
  });

  it('an insert-only re-run finds the users held identically, not "changed, not applied"', async () => {
    const { config } = await writePipeline(dir(), pipeline('insert'));
    const again = await runImport({ config, stateDir: state(), restart: true }, { client: f.client });
    expect(again.stages.users).toMatchObject({ read: 5, imported: 5, skipped: 0, changed: 0, updated: 0 });
  });

  it('an upsert re-run patches none of them', async () => {
    const { config } = await writePipeline(dir(), pipeline('upsert'));
    const patched = await runImport({ config, stateDir: state(), restart: true }, { client: f.client });
    expect(patched.stages.users).toMatchObject({ read: 5, imported: 5, changed: 0, updated: 0 });
  });

  it('still reports a real difference: a long integer differing in its last digit, text for a number', async () => {
    const dir = join(f.dir, 'wire-values-real');
    const pipe = pipeline('insert').replace('name: wirev', 'name: wirer').replaceAll('wv-', 'wr-');
    await writeInput(dir, 'users.csv', users.replaceAll('wv-', 'wr-'));
    await writeInput(dir, 'channels.csv', channels.replaceAll('wv-', 'wr-'));
    await writeInput(dir, 'messages.ndjson', `${messages.replaceAll('wv-', 'wr-')}\n`);
    const { config } = await writePipeline(dir, pipe);
    const state = join(dir, 'state');
    expect((await runImport({ config, stateDir: state }, { client: f.client })).status).toBe('succeeded');

    // The platform's copies change under chatport: b3's integer by its last digit, b8's number into text.
    const byName = new Map((await all(f.client.users.list({ pageSize: 100 }))).map((u) => [u.name, u]));
    for (const [name, n] of [['wr-b3', 9007199254740995n], ['wr-b8', '42']] as const) {
      const user = byName.get(name)!;
      await f.client.users.update(user.id, { properties: { ...user.properties, n } });
    }
    const rerun = await runImport({ config, stateDir: state, restart: true, verify: { sample: 10 } }, { client: f.client });
    expect(rerun.stages.users).toMatchObject({ read: 5, imported: 3, skipped: 2, changed: 2 });
    expect(rerun.verification).toMatchObject({ status: 'differences' });
  });
});
