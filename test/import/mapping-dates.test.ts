import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const pipeline = `name: dated
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: name, displayName: name, isGuest: { const: false }, properties: { joined: { field: joined, type: date } } }
`;

describe('dates in a CSV, imported and read back', () => {
  it('holds each as the UTC time it denotes; epoch microseconds and days that do not exist are rejected, not years away', async () => {
    const dir = join(f.dir, 'dated');
    const rows = [
      ['1', 'dt-ms', '1700000000123'],
      ['2', 'dt-offset', '2024-02-29T23:30:00.1234567+05:30'],
      ['3', 'dt-moon', '1969-07-20 20:17:40'],
      // Epoch microseconds (16 digits, and 15 before 2001): as milliseconds they would be the years 55841 and 33658.
      ['4', 'dt-micro', '1700000000123456'],
      ['5', 'dt-micro15', '999999999999999'],
      ['6', 'dt-noleap', '2023-02-29'],
    ];
    await writeInput(dir, 'users.csv', `id,name,joined\n${rows.map((r) => r.join(',')).join('\n')}\n`);
    const { config } = await writePipeline(dir, pipeline);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 6, imported: 3, rejected: 3 });
    expect(report.verification?.status).toBe('exact');
    const users = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.properties?.chatportPipeline === 'dated');
    expect(users.map((u) => [u.name, u.properties?.joined]).sort()).toEqual([
      ['dt-moon', '1969-07-20T20:17:40.000Z'],
      ['dt-ms', '2023-11-14T22:13:20.123Z'],
      ['dt-offset', '2024-02-29T18:00:00.1234567Z'],
    ]);
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { line: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.line, r.reasons.map((x) => x.field)])).toEqual([[5, ['properties.joined']], [6, ['properties.joined']], [7, ['properties.joined']]]);
    expect(rejects[0]!.reasons[0]!.message).toContain('epoch milliseconds: a whole number of 12 or 13 digits');
  });
});
