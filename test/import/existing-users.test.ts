import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Creates a user through the API, as single sign-on would before the migration. */
async function createPlatformUser(name: string, properties: Record<string, unknown> = {}): Promise<void> {
  const token = f.sandbox.issueToken({ scopes: ['create:user'] });
  const res = await fetch(`${f.sandbox.url}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.chat+json' },
    body: JSON.stringify({ name, displayName: `SSO ${name}`, isGuest: false, properties }),
  });
  expect(res.status).toBe(200);
}

async function writeTeam(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.csv', ['id,username,email,display', `1,${prefix}ann,ann@${prefix}.example,Ann`, `2,${prefix}bob,bob@${prefix}.example,Bob`, `3,${prefix}cy,cy@${prefix}.example,Cy`, ''].join('\n'));
  await writeInput(dir, 'channels.csv', `key,name,members\nc1,${prefix}room,${prefix}ann|${prefix}bob|${prefix}cy\n`);
  await writeInput(dir, 'messages.csv', ['id,channel,author,text', `m1,c1,${prefix}ann,from ann`, `m2,c1,${prefix}bob,from bob`, `m3,c1,${prefix}cy,from cy`, ''].join('\n'));
}

const pipeline = (name: string, users: string) => `name: ${name}
stages:
  users:
    source: { path: users.csv }
    key: id
    ${users}
    mapping: { name: username, displayName: display, isGuest: { const: false }, properties: { email: email } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, mapping: { type: { const: TEXT }, user: author, body: text } }
`;

async function authorsIn(channelName: string): Promise<string[]> {
  const [channel] = (await all(f.client.channels.list())).filter((c) => c.name === channelName);
  const messages = await all(f.client.channels.messages(channel!.id, { pageSize: 100 }));
  return messages.sort((a, b) => compareInt64(a.id, b.id)).map((m) => `${m.user?.name}: ${m.body}`);
}

describe('users the platform already has (onExisting)', () => {
  it('match by name: not created, counted as matched, their messages attributed to them, verified exact', async () => {
    await createPlatformUser('mnann');
    const dir = join(f.dir, 'match-name');
    await writeTeam(dir, 'mn');
    const { config } = await writePipeline(dir, pipeline('existing-match-name', 'onExisting: match'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, matched: 1, rejected: 0 });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const ann = (await all(f.client.users.list({ name: 'mnann' })))[0]!;
    expect(ann.displayName).toBe('SSO mnann');
    expect(ann.properties?.chatportPipeline).toBeUndefined();
    expect(await authorsIn('mnroom')).toEqual(['mnann: from ann', 'mnbob: from bob', 'mncy: from cy']);
  });

  it('match by a property: the platform user with the same email gets the source user\'s messages and memberships', async () => {
    await createPlatformUser('bob.sso', { email: 'bob@mp.example' });
    const dir = join(f.dir, 'match-email');
    await writeTeam(dir, 'mp');
    const { config } = await writePipeline(dir, pipeline('existing-match-email', 'onExisting: match\n    matchBy: properties.email'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, matched: 1 });
    expect(report.verification?.status).toBe('exact');
    expect((await all(f.client.users.list({ name: 'mpbob' })))).toEqual([]);
    expect(await authorsIn('mproom')).toEqual(['mpann: from ann', 'bob.sso: from bob', 'mpcy: from cy']);
    const [room] = (await all(f.client.channels.list())).filter((c) => c.name === 'mproom');
    expect((await all(f.client.channels.members(room!.id))).map((m) => m.name).sort()).toEqual(['bob.sso', 'mpann', 'mpcy']);
  });

  it('match by a property: a source user matched to no one, whose name a stranger holds, is rejected and so is every record naming it', async () => {
    await createPlatformUser('uxann', { email: 'ann@ux.example' });
    await createPlatformUser('uxcy', { email: 'someone-else@ux.example' });
    const dir = join(f.dir, 'unmatched-taken');
    await writeTeam(dir, 'ux');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,uxroom,uxann|uxbob\nc2,uxcyroom,uxbob|uxcy\n');
    await writeInput(dir, 'messages.csv', ['id,channel,author,text', 'm1,c1,uxann,from ann', 'm2,c1,uxbob,from bob', 'm3,c1,uxcy,from cy', ''].join('\n'));
    const { config } = await writePipeline(dir, pipeline('existing-unmatched-taken', 'onExisting: match\n    matchBy: properties.email'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 1, skipped: 1, matched: 1, rejected: 1 });
    expect(report.stages.channels).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(report.verification?.status).toBe('exact');
    // The stranger 'uxcy' got neither the channel nor the message of the source's uxcy.
    expect(await authorsIn('uxroom')).toEqual(['uxann: from ann', 'uxbob: from bob']);
    expect((await all(f.client.channels.list())).filter((c) => c.name === 'uxcyroom')).toEqual([]);
  });

  it('verification tells the pipeline\'s user from another of the same name: messages naming one that is not the pipeline\'s are a difference', async () => {
    const dir = join(f.dir, 'identity-verified');
    await writeTeam(dir, 'iv');
    const { config } = await writePipeline(dir, pipeline('identity-verified', ''));
    const first = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(first.verification?.status).toBe('exact');
    // The platform's ivbob stops being this pipeline's record (as if another tool had made it): its name,
    // content and messages are unchanged, so only who it is tells it apart.
    const bob = (await all(f.client.users.list({ name: 'ivbob' })))[0]!;
    await f.client.users.update(bob.id, { properties: { chatportPipeline: null, chatportKey: null } });
    const { summary, differences } = await runVerify({ config, exportWait: { pollIntervalMs: 20, timeoutMs: 60_000 } }, { client: f.client });
    expect(summary.status).toBe('differences');
    expect(differences).toEqual([expect.objectContaining({ kind: 'changed', stage: 'users', sourceKey: '2', fields: ['identity'], message: expect.stringContaining('the messages and memberships the source gives "ivbob" belong to that other user') })]);
  });

  it('skip: not created and counted as skipped; fail: stops before sending anything, naming them (USERS_EXIST, exit 65)', async () => {
    await createPlatformUser('skcy');
    const skipDir = join(f.dir, 'skip');
    await writeTeam(skipDir, 'sk');
    const skipped = await runImport({ config: (await writePipeline(skipDir, pipeline('existing-skip', 'onExisting: skip'))).config, stateDir: join(skipDir, 'state') }, { client: f.client });
    expect(skipped.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(skipped.stages.users!.matched).toBeUndefined();

    await createPlatformUser('flbob');
    const failDir = join(f.dir, 'fail');
    await writeTeam(failDir, 'fl');
    const { config } = await writePipeline(failDir, pipeline('existing-fail', 'onExisting: fail'));
    const error = await runImport({ config, stateDir: join(failDir, 'state') }, { client: f.client }).then(
      () => ({ code: 'none', message: 'the run did not fail' }),
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error).toMatchObject({ code: 'USERS_EXIST' });
    expect(error.message).toContain('1 source users already exist on the platform (matched by name): flbob. Nothing was sent.');
    expect(await all(f.client.users.list({ name: 'flann' }))).toEqual([]);
  });
});
