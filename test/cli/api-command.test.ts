import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startImportFixture, type ImportFixture } from '../import/support.js';

/** `chatport api` as a new user runs it: the built-in sandbox connection from the CHATPORT_* variables. */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture({ seed: 'demo' });
});
afterAll(() => f.close());

const api = (...args: string[]) => runCli(['api', ...args], f.env);

/** Records made straight over HTTP (not what these tests are about, and a CLI start each would be slow). */
async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${f.sandbox.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${f.sandbox.issueToken()}`, 'content-type': 'application/vnd.chat+json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

// Every test runs several CLI processes through tsx: 30 s was too short beside other tests on a loaded 2-core machine.
describe('chatport api', { timeout: 120_000 }, () => {
  it('GET one resource prints its JSON', async () => {
    const ran = await api('GET', '/users/1');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ id: 1, name: 'alice', _links: { self: { href: `${f.sandbox.url}/users/1` } } });
    expect(ran.stdout).toContain('\n  "id": 1');
  });

  it('--paginate follows offset pages and prints every item once, in order; --json prints one per line', async () => {
    for (let i = 0; i < 7; i++) await post('/users', { name: `pager-${i}`, displayName: `P ${i}`, isGuest: false });
    const all = await api('GET', '/users?size=2', '--paginate');
    expect(all.code, all.stderr).toBe(0);
    const names = (JSON.parse(all.stdout) as Array<{ name: string }>).map((u) => u.name);
    const single = JSON.parse((await api('GET', '/users?size=100')).stdout) as { _embedded: { users: Array<{ name: string }> } };
    expect(names).toEqual(single._embedded.users.map((u) => u.name));
    expect(names).toEqual(expect.arrayContaining(['pager-0', 'pager-6']));
    const lines = await api('GET', '/users', '-F', 'size=3', '--paginate', '--json');
    expect(lines.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(names);
  });

  it('--paginate follows cursor pages (channel messages)', async () => {
    for (let i = 0; i < 5; i++) await post('/channels/1/messages', { type: 'SYSTEM_TEXT', body: `cursor ${i}` });
    const paged = await api('GET', '/channels/1/messages?size=2', '--paginate');
    expect(paged.code, paged.stderr).toBe(0);
    const whole = JSON.parse((await api('GET', '/channels/1/messages?size=100')).stdout) as { _embedded: { messages: Array<{ id: number }> } };
    expect((JSON.parse(paged.stdout) as Array<{ id: number }>).map((m) => m.id)).toEqual(whole._embedded.messages.map((m) => m.id));
  });

  it('--data from a file and PATCH as a merge patch', async () => {
    const file = join(f.dir, 'user.json');
    await writeFile(file, JSON.stringify({ name: 'from-file', displayName: 'From File', isGuest: false, properties: { a: 1 } }));
    const created = await api('POST', '/users', '--data', `@${file}`);
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: number }).id;
    const patched = await api('PATCH', `/users/${id}`, '--data', '{"displayName":"Patched","properties":{"a":null,"b":2}}');
    expect(patched.code, patched.stderr).toBe(0);
    expect(JSON.parse(patched.stdout)).toMatchObject({ displayName: 'Patched', properties: { b: 2 } });
  });

  it('multipart --form uploads a file part (an import) and prints the job', async () => {
    const file = join(f.dir, 'users-import.json');
    await writeFile(file, JSON.stringify([{ name: 'formed', displayName: 'Formed', isGuest: false, properties: {} }]));
    const ran = await api('POST', '/imports/users', '--form', `file=@${file}`);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ type: 'USER_IMPORT' });
  });

  it('a 404 exits 66, a refused body exits 65 with the platform\'s words, a missing scope 77; nothing secret is printed', async () => {
    const missing = await api('GET', '/users/999999');
    expect(missing.code).toBe(66);
    expect(missing.stderr).toContain('chatport: GET /users/999999 found nothing (404)');
    const bad = await api('POST', '/users', '--data', '{"name":""}');
    expect(bad.code).toBe(65);
    expect(bad.stderr).toContain('POST /users was refused with 400');
    const token = f.sandbox.issueToken({ scopes: ['read:user'] });
    const denied = await runCli(['api', 'GET', '/channels'], { CHATPORT_API_URL: f.sandbox.url, CHATPORT_ACCESS_TOKEN: token });
    expect(denied.code).toBe(77);
    for (const out of [missing, bad, denied]) expect(out.stdout + out.stderr).not.toContain(f.sandbox.credentials.clientSecret);
    expect(denied.stderr).not.toContain(token);
  });

  it('refuses a bad method, a relative path and malformed --data with the usage exit code', async () => {
    expect((await api('FETCH', '/users')).code).toBe(64);
    expect((await api('GET', 'users')).code).toBe(64);
    expect((await api('POST', '/users', '--data', '{nope')).code).toBe(64);
  });
});
