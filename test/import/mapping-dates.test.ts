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

describe('dates near the ends of the years a timestamp can write (YYYY: 0000 to 9999)', () => {
  it('takes year 0000 (1 BC, a leap year in the proleptic Gregorian calendar of ISO 8601) and refuses, saying why, a day that does not exist or a time that in UTC leaves 0000–9999', async () => {
    const dir = join(f.dir, 'dated-ends');
    const rows = [
      ['1', 'end-leap0', '0000-02-29'],
      ['2', 'end-leap0-fine', '0000-02-29T10:00:00.1234Z'],
      ['3', 'end-leap400', '0400-02-29 12:00'],
      ['4', 'end-noleap1', '0001-02-29'],
      ['5', 'end-before0', '0000-01-01T00:30:00+01:00'],
      ['6', 'end-after9999', '9999-12-31T23:59:59-01:00'],
    ];
    await writeInput(dir, 'users.csv', `id,name,joined\n${rows.map((r) => r.join(',')).join('\n')}\n`);
    const { config } = await writePipeline(dir, pipeline.replace('name: dated', 'name: dated-ends'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 6, imported: 3, rejected: 3 });
    expect(report.verification?.status).toBe('exact');
    const users = (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.properties?.chatportPipeline === 'dated-ends');
    expect(users.map((u) => [u.name, u.properties?.joined]).sort()).toEqual([
      ['end-leap0', '0000-02-29T00:00:00.000Z'],
      ['end-leap0-fine', '0000-02-29T10:00:00.1234Z'],
      ['end-leap400', '0400-02-29T12:00:00.000Z'],
    ]);
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { line: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => r.line)).toEqual([5, 6, 7]);
    expect(rejects[0]!.reasons[0]!.message).toContain('a day that exists (February 0001 has 28 days)');
    expect(rejects[1]!.reasons[0]!.message).toContain('a time that in UTC falls in the years 0000 to 9999 (timestamps are written YYYY-MM-DDTHH:MM:SSZ; this one is -000001-12-31T23:30:00.000Z)');
    expect(rejects[2]!.reasons[0]!.message).toContain('this one is +010000-01-01T00:59:59.000Z');
  });
});
