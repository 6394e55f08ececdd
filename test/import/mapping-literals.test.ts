import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

// Codes written unquoted in the pipeline file: YAML alone would read `007` as 7, `01` as 1 and `1.50` as 1.5.
const pipeline = `name: literal-codes
stages:
  users:
    source: { path: users.csv }
    key: id
    skip: [{ field: dept, equals: 007 }]
    mapping:
      name: name
      displayName: name
      isGuest: { const: false }
      properties: { vip: { const: yes, when: { field: tier, in: [1.50, 0x1F] } } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { field: code, map: { 01: PUBLIC, 02: PRIVATE } }, name: name, members: { const: [lit-b] } }
`;

describe('codes written unquoted in value maps and conditions', () => {
  it('are compared as the text written: 007 skips "007" and not "7", 01 maps "01", 1.50 holds for "1.50" only', async () => {
    const dir = join(f.dir, 'literal-codes');
    await writeInput(dir, 'users.csv', 'id,name,dept,tier\n1,lit-a,007,1.5\n2,lit-b,7,1.50\n3,lit-c,07,31\n');
    await writeInput(dir, 'channels.csv', 'key,name,code\nc1,lit-pub,01\nc2,lit-priv,02\n');
    const { config } = await writePipeline(dir, pipeline);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(report.stages.channels).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.properties?.chatportPipeline === 'literal-codes');
    expect(users.map((u) => [u.name, u.properties?.vip ?? null]).sort()).toEqual([['lit-b', 'yes'], ['lit-c', null]]);
    const channels = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.properties?.chatportPipeline === 'literal-codes');
    expect(channels.map((c) => [c.name, c.type]).sort()).toEqual([['lit-priv', 'PRIVATE'], ['lit-pub', 'PUBLIC']]);
  });
});
