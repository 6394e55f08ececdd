import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, startImportFixture, runCli, chatportEnv, writeInput, type ImportFixture } from './support.js';

const EXAMPLE = join(import.meta.dirname, '../../pipelines/csv-example.yaml');

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...chatportEnv(f), ...env });

describe('chatport import, validate, status, schema', () => {
  it('validate checks offline, prints each problem at its file:line and exits 65', async () => {
    const result = await cli(['validate', EXAMPLE]);
    expect(result.code).toBe(65);
    expect(result.stdout).toMatch(/users\.csv:5: isGuest .*expected a boolean/);
    expect(result.stdout).toMatch(/messages\.csv:8: expected 7 fields/);
    const json = JSON.parse((await cli(['validate', EXAMPLE, '--json'])).stdout) as { totals: { read: number; rejected: number; skipped: number; pending: number; balanced: boolean } };
    expect(json.totals).toMatchObject({ read: 26, rejected: 9, skipped: 1, pending: 16, balanced: true });
    // Nothing reached the platform.
    expect(await all(f.client.users.list())).toEqual([]);
  });

  it('--dry-run writes the chunks and the report and uploads nothing', async () => {
    const state = join(f.dir, 'dry');
    const result = await cli(['import', EXAMPLE, '--dry-run', '--state', state, '--json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { status: string; runDir: string; totals: { imported: number; pending: number } };
    expect(report).toMatchObject({ status: 'dry-run', totals: { imported: 0, pending: 16 } });
    const chunks = await readdir(join(report.runDir, 'chunks', 'users'));
    expect(chunks).toEqual(['000000.json']);
    const users = JSON.parse(await readFile(join(report.runDir, 'chunks', 'users', chunks[0]!), 'utf8')) as Array<{ name: string; idempotencyKey: string }>;
    expect(users.map((u) => u.name)).toEqual(['alice', 'bob', 'carol']);
    expect(users[0]!.idempotencyKey).toMatch(/^cp1-[0-9a-f]{32}$/);
    expect(await all(f.client.users.list())).toEqual([]);
  });

  it('--max-rejects stops a stage past the limit with exit 65, naming the rejects file', async () => {
    const result = await cli(['import', EXAMPLE, '--max-rejects', '1', '--state', join(f.dir, 'max')]);
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(/the users stage has more than 1 rejected records \(see .*rejects\/users\.ndjson\)/);
  });

  it('a pipeline file with a mistake exits 78 and names the line and path', async () => {
    const path = await writeInput(f.dir, 'bad.yaml', 'name: bad\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, isGuest: { const: false } }\n');
    const result = await cli(['import', path]);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/bad\.yaml:6: stages\.users\.mapping\.displayName/);
  });

  it('status shows the run, and a second import after a finished run starts a new one', async () => {
    const state = join(f.dir, 'status');
    expect((await cli(['status', EXAMPLE, '--state', state])).stdout).toMatch(/no run yet/);
    const first = await cli(['import', EXAMPLE, '--state', state, '--json']);
    expect(first.code).toBe(2);
    const status = JSON.parse((await cli(['status', EXAMPLE, '--state', state, '--json'])).stdout) as { state: string; stages: Record<string, { done: boolean; chunksDone: number }>; lastReport: { totals: { imported: number } } };
    expect(status.state).toBe('ended');
    expect(status.stages.messages).toMatchObject({ done: true, chunksDone: 1 });
    expect(status.lastReport.totals.imported).toBe(16);
  });

  it('status and runs read the state folder only: an api block whose variables are unset draws no warning', async () => {
    const dir = join(f.dir, 'status-api');
    await writeInput(dir, 'users.csv', 'id,username\nu1,ann\n');
    const pipeline = join(dir, 'p.yaml');
    await writeInput(dir, 'p.yaml', `name: st-api\napi: { url: "\${CHATPORT_API_URL}", clientId: "\${CHATPORT_CLIENT_ID}", clientSecret: "\${CHATPORT_CLIENT_SECRET}" }\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: username, isGuest: { const: false } }\n`);
    const unset = { CHATPORT_API_URL: undefined, CHATPORT_CLIENT_ID: undefined, CHATPORT_CLIENT_SECRET: undefined, CHATPORT_LOG_LEVEL: 'info' };
    for (const args of [['status', pipeline, '--state', join(dir, 'state')], ['runs', 'list', pipeline]]) {
      const result = await runCli(args, unset);
      expect(result.code).toBe(0);
      expect(result.stderr).not.toContain('CHATPORT_');
    }
  });

  it('schema prints the JSON Schema of pipeline files', async () => {
    const schema = JSON.parse((await cli(['schema'])).stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['name', 'stages', 'api', 'options']));
  });
});
