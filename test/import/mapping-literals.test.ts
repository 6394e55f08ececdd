import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Writes the input files and the pipeline into their own folder, imports and verifies: the run's report. */
async function importFiles(name: string, yaml: string, files: Record<string, string>, env: Record<string, string> = {}) {
  const dir = join(f.dir, name);
  for (const [file, text] of Object.entries(files)) await writeInput(dir, file, text);
  const { config } = await writePipeline(dir, yaml, env);
  return runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
}

/** The users (or channels) the pipeline of this id imported, as the platform lists them. */
const ownUsers = async (id: string) => (await all(f.client.users.list({ pageSize: 100 }))).filter((u) => u.properties?.chatportPipeline === id);
const ownChannels = async (id: string) => (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.properties?.chatportPipeline === id);

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
    const report = await importFiles('literal-codes', pipeline, {
      'users.csv': 'id,name,dept,tier\n1,lit-a,007,1.5\n2,lit-b,7,1.50\n3,lit-c,07,31\n',
      'channels.csv': 'key,name,code\nc1,lit-pub,01\nc2,lit-priv,02\n',
    });

    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(report.stages.channels).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('literal-codes');
    expect(users.map((u) => [u.name, u.properties?.vip ?? null]).sort()).toEqual([['lit-b', 'yes'], ['lit-c', null]]);
    const channels = await ownChannels('literal-codes');
    expect(channels.map((c) => [c.name, c.type]).sort()).toEqual([['lit-priv', 'PRIVATE'], ['lit-pub', 'PUBLIC']]);
  });
});

// Values the mapping puts into items: numbers whose text a JSON number cannot give back stay the text written.
const valuesPipeline = `name: literal-values
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping:
      name: name
      displayName: { field: nick, default: 007 }
      isGuest: { const: false }
      properties:
        agent: { const: 007 }
        version: { const: 1.10 }
        colour: { const: 0x1F }
        scale: { const: 1e3 }
        sign: { const: +1 }
        big: { const: 12345678901234567890 }
        plain: { const: 42 }
        half: { const: 1.5 }
        codes: { const: [007, 3, { room: 0101 }] }
        centre: { field: dept, map: { sales: 0042, ops: 17 }, default: 0099 }
        grade: { field: grade, type: string, default: 01 }
        count: { field: count, type: integer, default: 010 }
        fromEnv:
          const: \${CODE}
        0042: { const: room }
        nothing: { const: .inf }
`;

describe('numbers written unquoted in const, default and value-map values', () => {
  it('reach the platform as written: 007 is "007", 1.10 is "1.10", 0x1F is "0x1F"; 42 and 1.5 stay numbers; a long integer keeps its digits', async () => {
    const report = await importFiles('literal-values', valuesPipeline, { 'users.csv': 'id,name,nick,dept,grade,count\n1,val-a,,sales,,\n2,val-b,Bee,hr,B,3\n' }, { CODE: '0070' });

    expect(report.stages.users).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('literal-values');
    const a = users.find((u) => u.name === 'val-a')!;
    const b = users.find((u) => u.name === 'val-b')!;
    expect(a.displayName).toBe('007');
    expect(a.properties).toMatchObject({
      agent: '007', version: '1.10', colour: '0x1F', scale: '1e3', sign: '+1', plain: 42, half: 1.5,
      codes: ['007', 3, { room: '0101' }], centre: '0042', grade: '01', count: 10, fromEnv: '0070', '0042': 'room', nothing: '.inf',
    });
    expect(b.properties).toMatchObject({ centre: '0099', grade: 'B', count: 3 });
    // Read raw: every digit of the long integer, as a JSON number.
    const raw = await (await fetch(`${f.sandbox.url}/users/${String(a.id)}`, { headers: { authorization: `Bearer ${f.sandbox.issueToken()}` } })).text();
    expect(raw).toContain('"big":12345678901234567890');
  });
});

// True, FALSE: YAML reads them as booleans, whose text would be "true" and "false".
const booleansPipeline = `name: literal-booleans
stages:
  users:
    source: { path: users.csv }
    key: id
    skip: [{ field: archived, equals: True }]
    mapping:
      name: name
      displayName: name
      isGuest: { field: guest, map: { TRUE: true, False: false } }
      properties: { staff: { const: yes, when: { field: staff, in: [True] } } }
  channels:
    source: { path: channels.ndjson }
    key: key
    skip: [{ field: archived, equals: True }]
    mapping: { type: { field: private, map: { True: PRIVATE, False: PUBLIC } }, name: name, members: { const: [bool-b] } }
`;

describe('booleans written unquoted in conditions and value-map keys', () => {
  it('compare as the text written (True holds for the CSV text "True", not "true"), and for a JSON boolean of that value', async () => {
    const report = await importFiles('literal-booleans', booleansPipeline, {
      'users.csv': 'id,name,archived,guest,staff\n1,bool-a,True,FALSE,True\n2,bool-b,true,TRUE,True\n3,bool-c,,False,true\n',
      'channels.ndjson': '{"key":"c1","name":"bool-pub","private":false,"archived":false}\n{"key":"c2","name":"bool-priv","private":true}\n{"key":"c3","name":"bool-old","private":true,"archived":true}\n',
    });

    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(report.stages.channels).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('literal-booleans');
    expect(users.map((u) => [u.name, u.isGuest, u.properties?.staff ?? null]).sort()).toEqual([['bool-b', true, 'yes'], ['bool-c', false, null]]);
    const channels = await ownChannels('literal-booleans');
    expect(channels.map((c) => [c.name, c.type]).sort()).toEqual([['bool-priv', 'PRIVATE'], ['bool-pub', 'PUBLIC']]);
  });
});

// YAML merge keys, as people write them to share a mapping's common part between stages.
const mergePipeline = `name: merge-keys
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping:
      name: name
      displayName: name
      isGuest: { const: false }
      properties: &shared { dept: dept, site: { const: hq } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping:
      type: { const: PUBLIC }
      name: name
      members: { const: [merge-a] }
      properties: { <<: *shared, topic: topic }
`;

describe('YAML merge keys (<<) in a mapping', () => {
  it('merge the entries they name, as YAML tools do, instead of making a property named "<<"', async () => {
    const report = await importFiles('merge-keys', mergePipeline, { 'users.csv': 'id,name,dept\n1,merge-a,ops\n', 'channels.csv': 'key,name,dept,topic\nc1,merge-chan,sales,news\n' });

    expect(report.stages.channels).toMatchObject({ read: 1, imported: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const [channel] = await ownChannels('merge-keys');
    expect(channel!.properties).toEqual({ dept: 'sales', site: 'hq', topic: 'news', chatportPipeline: 'merge-keys', chatportKey: 'c1' });
  });
});

// A JSON number has no text of its own: 1.50 in the file is the number 1.5, as 1.50 in the pipeline file is.
const jsonNumbersPipeline = `name: json-numbers
stages:
  users:
    source: { path: users.ndjson }
    key: id
    skip: [{ field: score, equals: 1.50 }]
    mapping:
      name: name
      displayName: name
      isGuest: { field: level, map: { 2.0: true, 1e0: false } }
      properties: { code: { const: x, when: { field: code, in: [007] } } }
`;

describe('numbers written in conditions and value-map keys, against JSON numbers', () => {
  it('match the JSON number they denote (1.50 holds for 1.5, 2.0 maps 2), while a code with leading zeros matches only its text', async () => {
    const report = await importFiles('json-numbers', jsonNumbersPipeline, {
      'users.ndjson': '{"id":1,"name":"num-a","score":1.50,"level":2,"code":7}\n{"id":2,"name":"num-b","score":1.05,"level":2.0,"code":"007"}\n{"id":3,"name":"num-c","score":15,"level":1}\n',
    });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('json-numbers');
    expect(users.map((u) => [u.name, u.isGuest, u.properties?.code ?? null]).sort()).toEqual([['num-b', true, 'x'], ['num-c', false, null]]);
  });
});

// pandas and spreadsheets write a whole-number column that holds blanks as 1.0, 0.0.
const floatColumnPipeline = `name: float-column
stages:
  users:
    source: { path: users.csv }
    key: id
    skip: [{ field: deleted, equals: 1 }]
    mapping:
      name: name
      displayName: name
      isGuest: { field: guest, map: { 1: true, 0: false }, default: false }
      properties:
        tier: { field: tier, map: { 2: gold, 1.5: odd }, default: none }
        vip: { const: yes, when: { field: tier, in: [2] } }
        active: { field: guest, type: boolean }
`;

describe('a whole number written as a float column writes it (1.0)', () => {
  it('takes the value-map key, the condition and the boolean (1.0 is 1, true) of that whole number; other decimals stay text (1.50 is not 1.5)', async () => {
    const report = await importFiles('float-column', floatColumnPipeline, {
      'users.csv': 'id,name,guest,tier,deleted\n1,flt-a,1.0,2.00,0.0\n2,flt-b,0.0,1.50,\n3,flt-c,1,-0.0,1.0\n4,flt-d,1.00,2,\n',
    });

    expect(report.stages.users).toMatchObject({ read: 4, imported: 3, skipped: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('float-column');
    expect(users.map((u) => [u.name, u.isGuest, u.properties?.tier, u.properties?.vip ?? null, u.properties?.active]).sort()).toEqual([
      ['flt-a', true, 'gold', 'yes', true],
      ['flt-b', false, 'none', null, false],
      ['flt-d', true, 'gold', 'yes', true],
    ]);
  });
});

const templatePipeline = `name: template-gaps
stages:
  users:
    source: { path: users.ndjson }
    key: id
    mapping:
      name: name
      displayName: { template: "{first} {middle} {last}" }
      isGuest: { const: false }
      properties: { label: { template: "{title} {first}  ({team})" } }
`;

describe('a template whose middle field is missing', () => {
  it('leaves one space where the field was, not two; spaces a present value holds stay', async () => {
    const report = await importFiles('template-gaps', templatePipeline, {
      'users.ndjson': [
        '{"id":1,"name":"tpl-a","first":"Ann","middle":"","last":"Lee","title":"Dr","team":"ops"}',
        '{"id":2,"name":"tpl-b","first":"Bo","last":"Ray","team":"x"}',
        '{"id":3,"name":"tpl-c","first":"Cy","middle":"Q","last":"Oh","title":"Ms"}',
        '{"id":4,"name":"tpl-d","first":"Di  Mo","middle":null,"last":"X","title":"  "}',
      ].join('\n') + '\n',
    });

    expect(report.stages.users).toMatchObject({ read: 4, imported: 4, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const users = await ownUsers('template-gaps');
    expect(users.map((u) => [u.name, u.displayName, u.properties?.label]).sort()).toEqual([
      ['tpl-a', 'Ann Lee', 'Dr Ann  (ops)'],
      ['tpl-b', 'Bo Ray', 'Bo  (x)'],
      ['tpl-c', 'Cy Q Oh', 'Ms Cy  ()'],
      ['tpl-d', 'Di  Mo X', 'Di  Mo  ()'],
    ]);
  });
});
