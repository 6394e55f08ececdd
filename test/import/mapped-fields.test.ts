import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runValidate } from '../../src/pipeline/import/run-validate.js';
import { formatReportTable, type RunReport } from '../../src/pipeline/report.js';
import { captureLogs } from '../api/support.js';
import { all, startImportFixture, runCli, writeInput, writePipeline, type ImportFixture } from './support.js';


let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const cli = (args: string[]) => runCli(args, f.env);

const API = 'api: { url: "${CHATPORT_API_URL}", clientId: "${CHATPORT_CLIENT_ID}", clientSecret: "${CHATPORT_CLIENT_SECRET}" }\n';

describe('mappings checked against the data', () => {
  it('validate and import refuse (exit 78, nothing sent) a mapping naming columns the CSV files do not have', async () => {
    const dir = join(f.dir, 'csv');
    const a = await writeInput(dir, 'users-a.csv', 'id,username,first,last_name,department\nu1,alice,Alice,Smith,Sales\n');
    const b = await writeInput(dir, 'users-b.csv', 'id,username,first,last_name\nu2,bob,Bob,Jones\n');
    const { path } = await writePipeline(
      dir,
      `name: columns\n${API}stages:\n  users:\n    source: { path: "users-*.csv" }\n    key: id\n    mapping:\n      name: username\n      displayName: { template: "{first} {lastname}" }\n      isGuest: { const: false }\n      properties: { dept: departmnt }\n`,
      f.env,
    );
    for (const command of ['validate', 'import']) {
      const result = await cli([command, path]);
      expect(result.code, result.stderr).toBe(78);
      const text = result.stderr + result.stdout;
      expect(text).toContain(`stages.users.mapping.displayName: names the column "lastname", which ${a} does not have (its columns: id, username, first, last_name, department); did you mean "last_name"?`);
      expect(text).toContain(`stages.users.mapping.properties.dept: names the column "departmnt", which ${a} does not have (its columns: id, username, first, last_name, department); did you mean "department"?`);
      expect(text).toContain(`stages.users.mapping.properties.dept: names the column "departmnt", which ${b} does not have (its columns: id, username, first, last_name)`);
    }
    expect(await all(f.client.users.list())).toEqual([]);
  });

  it('a header split at the wrong delimiter says which delimiter to set; a header name between spaces is the one meant', async () => {
    const dir = join(f.dir, 'spreadsheet-headers');
    const tabs = await writeInput(dir, 'tabs.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id\tusername\r\nu1\tsh-alice\r\n', 'utf16le')]));
    const spaced = await writeInput(dir, 'spaced.csv', ' id , username \nu2,sh-bob\n');
    for (const file of [tabs, spaced]) {
      const { path } = await writePipeline(dir, `name: sheet\n${API}stages:\n  users:\n    source: { path: ${JSON.stringify(file)} }\n    key: id\n    mapping: { name: username, displayName: username, isGuest: { const: false } }\n`, f.env);
      const result = await cli(['validate', path]);
      expect(result.code, result.stderr).toBe(78);
      if (file === tabs) expect(result.stderr).toContain(`${tabs}: its header is one column holding "\\t" between names; the file's delimiter is likely "\\t": set the stage's source csv: { delimiter: "\\t" }`);
      else {
        expect(result.stderr).toContain(`stages.users.key: names the column "id", which ${spaced} does not have (its columns:  id ,  username ); did you mean " id "?`);
        expect(result.stderr).not.toContain('delimiter is likely');
      }
    }
  });

  it('NDJSON: a mapped field no record has is a warning, and the report names it at the stage\'s end', async () => {
    const dir = join(f.dir, 'ndjson');
    await writeInput(dir, 'users.ndjson', '{"id":"u1","username":"nd-alice","display":"Alice"}\n{"id":"u2","username":"nd-bob","display":"Bob","team":"x"}\n');
    const { config } = await writePipeline(
      dir,
      'name: fields\nstages:\n  users:\n    source: { path: users.ndjson }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false }, properties: { dept: department, team: team } }\n',
    );
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.status).toBe('succeeded');
    const written = JSON.parse(await readFile(join(report.runDir, 'report.json'), 'utf8')) as RunReport;
    expect(written.warnings).toEqual([
      {
        stage: 'users', path: 'stages.users.mapping.properties.dept', field: 'department',
        message: 'stages.users.mapping.properties.dept: none of the 2 records of the users stage had the field "department"; what it maps to stayed empty',
      },
    ]);
    expect(formatReportTable(written)).toContain('warning: stages.users.mapping.properties.dept: none of the 2 records');
  });

  it('a template none of whose fields any record had is warned of for each of its fields, by validate as by import', async () => {
    const dir = join(f.dir, 'template');
    await writeInput(dir, 'users.csv', 'id,username,first,last\n'); // a header, 0 records
    const { config } = await writePipeline(
      dir,
      'name: template\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: { template: "{first} {last}" }, isGuest: { const: false } }\n',
    );
    const displayName = (field: string) => ({
      stage: 'users', path: 'stages.users.mapping.displayName', field,
      message: `stages.users.mapping.displayName: none of the 0 records of the users stage had the field "${field}"; what it maps to stayed empty`,
    });
    const validated = await runValidate(config, { outDir: join(dir, 'validate') });
    expect(validated.warnings.filter((w) => w.path === 'stages.users.mapping.displayName')).toEqual([displayName('first'), displayName('last')]);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.warnings?.filter((w) => w.path === 'stages.users.mapping.displayName')).toEqual([displayName('first'), displayName('last')]);
  });

  it('files numbered without padding (part-10 read before part-2) are warned of by validate and import', async () => {
    const dir = join(f.dir, 'numbered');
    for (const n of [1, 2, 10]) await writeInput(dir, `users/part-${n}.csv`, `id,username\nu${n},num-${n}\n`);
    const { config } = await writePipeline(dir, `name: numbered\nstages:\n  users:\n    source: { path: users/ }\n    key: id\n    mapping: { name: username, displayName: username, isGuest: { const: false } }\n`);
    const message = `stages.users.source.path: the stage's files are read in the order of their names' characters, so ${join(dir, 'users/part-10.csv')} is read before ${join(dir, 'users/part-2.csv')}`;
    const validated = await runValidate(config, { outDir: join(dir, 'validate') });
    expect(validated.warnings.map((w) => w.message)).toEqual([expect.stringContaining(message)]);
    const logs = captureLogs();
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client, logger: logs.logger });
    expect(report.status).toBe('succeeded');
    expect(logs.lines.join('')).toContain(message);
    const names = (await all(f.client.users.list())).filter((u) => u.properties?.chatportPipeline === 'numbered').map((u) => u.name);
    expect(names).toEqual(['num-1', 'num-10', 'num-2']);
  });
});
