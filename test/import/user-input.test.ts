// A team's own files and pipeline, as a new user writes them, imported through the CLI into the sandbox.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportEnv, runCli, startImportFixture, writeInput, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(async () => {
  await f.close();
});

/**
 * A pipeline over users.csv, channels.csv and messages.csv in one folder; `messages` is the messages stage's
 * mapping block, from line 16 of the file on.
 */
function chatPipeline(name: string, users: string, messages: string[]): string {
  return [
    `name: ${name}`,
    'stages:',
    '  users:',
    '    source: { path: users.csv }',
    '    key: id',
    `    mapping: ${users}`,
    '  channels:',
    '    source: { path: channels.csv }',
    '    key: key',
    '    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } }',
    '  messages:',
    '    source: { path: messages.csv }',
    '    key: id',
    '    channel: channel',
    '    mapping:',
    ...messages.map((line) => `      ${line}`),
    '',
  ].join('\n');
}

/** A pipeline of one users stage over `file`, mapping username to name and display name. */
function usersPipeline(name: string, file: string): string {
  return [`name: ${name}`, 'stages:', '  users:', `    source: { path: ${file} }`, '    key: id', '    mapping: { name: username, displayName: username, isGuest: { const: false } }', ''].join('\n');
}

async function platformUsers(): Promise<string[]> {
  const names: string[] = [];
  for await (const user of f.client.users.list()) names.push(user.name);
  return names;
}

describe('a pipeline file with a mistake in a mapping key', () => {
  it('stops before sending anything, naming the key, its line and the field meant, instead of rejecting every record', async () => {
    const dir = join(f.dir, 'mapping-typo');
    await writeInput(dir, 'users.csv', 'id,username,first\nu1,alice,Alice\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,general,alice\n');
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm1,c1,alice,hello\n');
    const pipeline = await writeInput(dir, 'pipeline.yaml', chatPipeline('mapping-typo', '{ name: username, displayName: first, isGuest: { const: false } }', ['type: { const: TEXT }', 'body: text', 'usr: author']));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.stderr).toContain(`${pipeline}:18: stages.messages.mapping.usr: a messages import item has no field "usr"; did you mean "user"?`);
    expect(run.code).toBe(ExitCode.CONFIG);
    expect(await platformUsers()).toEqual([]);
  });
});

describe('a file with a UTF-8 byte order mark in a stage declared windows-1252', () => {
  it('is read as UTF-8: its header has the key column and the platform holds "Renée", not "RenÃ©e"', async () => {
    // An older export in windows-1252 beside a newer one saved as Excel's "CSV UTF-8" (mark, CRLF).
    const held = await importCp1252Users('bom-cp1252', {
      'users-1.csv': Buffer.from('id,username,display\r\nu1,zoe,Zo\xeb\r\n', 'latin1'),
      'users-2.csv': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,username,display\r\nu2,renee,Renée\r\n', 'utf8')]),
    });
    expect(held).toEqual(new Map([['zoe', 'Zoë'], ['renee', 'Renée']]));
  });
});

describe('a reference to a user written in another letter case or Unicode form', () => {
  it('is rejected naming the user the platform holds under the name that reads the same, and the mapping option that joins them', async () => {
    const dir = join(f.dir, 'look-alike');
    // The users export writes é as one character, the chat export as e and a combining accent; the chat export upper-cases a login,
    // and pads a login and a channel key with spaces (a list joined with ", ", a padded cell).
    await writeInput(dir, 'users.csv', 'id,username\nu1,jos\u00e9\nu2,bea\n');
    await writeInput(dir, 'channels.csv', 'key,name,members\nc1,general,bea\n');
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm1,c1,jose\u0301,hola\nm2,c1,BEA,hi\nm3,c1, bea ,hey\nm4,c1 ,bea,yo\n');
    const pipeline = await writeInput(dir, 'pipeline.yaml', chatPipeline('look-alike', '{ name: username, displayName: username, isGuest: { const: false } }', ['type: { const: TEXT }', 'body: text', 'user: author']));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.code).toBe(ExitCode.COMPLETED_WITH_REJECTS);
    const runDir = /^run directory: (.+)$/m.exec(run.stdout)![1]!;
    const rejects = (await readFile(join(runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { line: number; reasons: { message: string }[] });
    expect(rejects.map((r) => [r.line, r.reasons.map((x) => x.message)])).toEqual([
      [2, ["user: no user 'jose\u0301' on the platform (the users stage did not import it, and it was not there before); the platform holds 'jos\u00e9', the same text in another Unicode form (an accent written with its letter or apart): set unicode: NFC on this field and on the users stage's name"]],
      [3, ["user: no user 'BEA' on the platform (the users stage did not import it, and it was not there before); the platform holds 'bea', which differs in letter case only (names are compared exactly): set case: lower on this field and on the users stage's name"]],
      [4, ["user: no user ' bea ' on the platform (the users stage did not import it, and it was not there before); the platform holds 'bea', which differs in the spaces around it only (names are compared exactly): set trim: true on this field"]],
      [5, ['channelId (from source field "channel"): expected the key of a channel that the channels stage imported ("c1" is one: this value has spaces around it, which keys keep), found "c1 "']],
    ]);
  });
});

describe('a CSV file with no header row in a stage that expects one', () => {
  it('stops with exit 65 naming the empty file and how to read a file without a header, before anything is sent', async () => {
    const dir = join(f.dir, 'empty-csv');
    // A failed upstream export left the file empty.
    const file = await writeInput(dir, 'users.csv', '');
    const pipeline = await writeInput(dir, 'pipeline.yaml', usersPipeline('empty-csv', 'users.csv'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.stderr).toContain(`the users input ${file} cannot be read: it is empty (as is every input of the stage), where a header row naming the columns was expected; nothing was sent — if the file has no header row, name its columns in the stage's source: csv: { header: false, columns: [...] }`);
    expect(run.code).toBe(ExitCode.DATA_INVALID);
  });

  it('a Spark output folder is read without its empty _SUCCESS marker, an empty part as 0 records: its parts imported, exit 0', async () => {
    const dir = join(f.dir, 'spark-folder');
    await writeInput(dir, 'users/part-00000.csv', 'id,username\nsp1,spark-ann\n');
    await writeInput(dir, 'users/part-00001.csv', 'id,username\nsp2,spark-ben\n');
    // An empty partition's part: one empty input among others that hold data.
    await writeInput(dir, 'users/part-00002.csv', '');
    await writeInput(dir, 'users/_SUCCESS', '');
    const pipeline = await writeInput(dir, 'pipeline.yaml', usersPipeline('spark-folder', 'users/'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state'), '--json'], chatportEnv(f));
    expect(run.code).toBe(ExitCode.OK);
    expect((JSON.parse(run.stdout) as { totals: { read: number; imported: number } }).totals).toMatchObject({ read: 2, imported: 2 });
    expect((await platformUsers()).filter((n) => n.startsWith('spark-')).sort()).toEqual(['spark-ann', 'spark-ben']);
  });

  it('a file holding only its header row is an empty input: 0 records, exit 0', async () => {
    const dir = join(f.dir, 'header-only-csv');
    await writeInput(dir, 'users.csv', 'id,username\n');
    const pipeline = await writeInput(dir, 'pipeline.yaml', usersPipeline('header-only-csv', 'users.csv'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state'), '--json'], chatportEnv(f));
    expect(run.code).toBe(ExitCode.OK);
    expect((JSON.parse(run.stdout) as { totals: { read: number } }).totals.read).toBe(0);
  });
});

describe('a JSON file holding one object that wraps the records', () => {
  async function pipelineUsers(pipeline: string): Promise<string[]> {
    const names: string[] = [];
    for await (const user of f.client.users.list()) if (user.properties?.chatportPipeline === pipeline) names.push(user.name);
    return names;
  }

  it('stops with exit 65 saying the file is one object, where an array of records or one record per line was expected', async () => {
    const dir = join(f.dir, 'wrapped-json');
    const file = await writeInput(dir, 'users.json', '{"users":[{"id":"u1","username":"ann"},{"id":"u2","username":"ben"}]}\n');
    const pipeline = await writeInput(dir, 'pipeline.yaml', usersPipeline('wrapped-json', 'users.json'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.stderr).toContain(
      `the users input ${file} cannot be read: it holds one JSON object without the key field id, whose field "users" holds 2 objects, where an array of records ([{…}, {…}]) or one record per line (NDJSON) was expected; nothing was sent — if those objects are the records, write them as the file's array or one per line (a source cannot point at records inside an object)`,
    );
    expect(run.code).toBe(ExitCode.DATA_INVALID);
    expect(await pipelineUsers('wrapped-json')).toEqual([]);
  });

  it('a one-line NDJSON file holding one record (with a list of objects in a field) is imported', async () => {
    const dir = join(f.dir, 'one-record-ndjson');
    await writeInput(dir, 'users.ndjson', '{"id":"u1","username":"cat","roles":[{"name":"admin"},{"name":"ops"}]}\n');
    const pipeline = await writeInput(dir, 'pipeline.yaml', usersPipeline('one-record-ndjson', 'users.ndjson'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(ExitCode.OK);
    expect(await pipelineUsers('one-record-ndjson')).toEqual(['cat']);
  });
});

describe('a key or a templated field holding a JSON object, list or boolean', () => {
  it('rejects the record naming the field, text or a number expected and what was found, instead of writing JSON text as a key or a name', async () => {
    const dir = join(f.dir, 'json-valued-keys');
    await writeInput(dir, 'users.ndjson', [
      '{"id":{"a":1},"username":"obj","first":"O"}',
      '{"id":true,"username":"bool","first":"B"}',
      '{"id":"u3","username":"tmpl","first":["A"],"last":{"x":1}}',
      '{"id":"u4","username":"fine","first":"Fi","last":"Ne"}',
      '',
    ].join('\n'));
    await writeInput(dir, 'channels.ndjson', '{"key":"c1","name":"json-keys","members":"fine"}\n');
    await writeInput(dir, 'messages.ndjson', [
      '{"id":"m1","channel":{"key":"c1"},"author":"fine","text":"hi"}',
      '{"id":"m2","channel":"c1","author":"fine","text":"hello"}',
      '{"id":"m3","channel":"c1","author":"fine","text":"re","parent":["m2"]}',
      '',
    ].join('\n'));
    const pipeline = await writeInput(dir, 'pipeline.yaml', [
      'name: json-valued-keys',
      'stages:',
      '  users:',
      '    source: { path: users.ndjson }',
      '    key: id',
      '    mapping: { name: username, displayName: { template: "{first} {last}" }, isGuest: { const: false } }',
      '  channels:',
      '    source: { path: channels.ndjson }',
      '    key: key',
      '    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } }',
      '  messages:',
      '    source: { path: messages.ndjson }',
      '    key: id',
      '    channel: channel',
      '    thread: parent',
      '    mapping: { type: { const: TEXT }, body: text, user: author }',
      '',
    ].join('\n'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.code).toBe(ExitCode.COMPLETED_WITH_REJECTS);
    const runDir = /^run directory: (.+)$/m.exec(run.stdout)![1]!;
    const rejects = (await readFile(join(runDir, 'rejects.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { file: string; line: number; reasons: { field: string; expected: string; found: string; message: string }[] });
    expect(rejects.map((r) => [r.file.split('/').pop(), r.line, r.reasons.map((x) => x.message)])).toEqual([
      ['users.ndjson', 1, ['idempotencyKey (from source field "id"): expected text or a number (the source key), found an object']],
      ['users.ndjson', 2, ['idempotencyKey (from source field "id"): expected text or a number (the source key), found boolean true']],
      ['users.ndjson', 3, ['displayName (from source field "first"): expected text or a number (a template writes text), found an array of 1', 'displayName (from source field "last"): expected text or a number (a template writes text), found an object']],
      ['messages.ndjson', 1, ['channelId (from source field "channel"): expected text or a number (the key of a channel), found an object']],
      ['messages.ndjson', 3, ['thread (from source field "parent"): expected text or a number (the key of the message it replies to), found an array of 1']],
    ]);
    const held = new Map<string, string>();
    for await (const user of f.client.users.list()) if (user.properties?.chatportPipeline === 'json-valued-keys') held.set(user.name, user.displayName ?? '');
    expect(held).toEqual(new Map([['fine', 'Fi Ne']]));
  });
});

describe('a file with a UTF-16 byte order mark in a stage declared windows-1252', () => {
  it('is read as UTF-16: its header has the key column and the platform holds "Renée", not "ÿþi" and NULs', async () => {
    // An older export in windows-1252 beside newer ones saved as UTF-16 (mark, little and big endian).
    const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const held = await importCp1252Users('bom16-cp1252', {
      'users-1.csv': Buffer.from('id,username,display\r\nu1,zoe16,Zo\xeb\r\n', 'latin1'),
      'users-2.csv': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id,username,display\r\nu2,renee16,Renée\r\n', 'utf16le')]),
      'users-3.csv': Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('id,username,display\r\nu3,jose16,José\r\n')]),
    });
    expect(held).toEqual(new Map([['zoe16', 'Zoë'], ['renee16', 'Renée'], ['jose16', 'José']]));
  });
});

/**
 * Imports the files into a users stage declared windows-1252 (pipeline `name`), expecting a clean run; the
 * platform's users of that pipeline, name → display name.
 */
async function importCp1252Users(name: string, files: Record<string, Buffer>): Promise<Map<string, string>> {
  const dir = join(f.dir, name);
  for (const [file, bytes] of Object.entries(files)) await writeInput(dir, file, bytes);
  const pipeline = await writeInput(dir, 'pipeline.yaml', [
    `name: ${name}`,
    'stages:',
    '  users:',
    '    source: { path: "users-*.csv", encoding: windows-1252 }',
    '    key: id',
    '    mapping: { name: username, displayName: display, isGuest: { const: false } }',
    '',
  ].join('\n'));
  const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
  expect(run.stderr).toBe('');
  expect(run.code).toBe(ExitCode.OK);
  const held = new Map<string, string>();
  for await (const user of f.client.users.list()) if (user.properties?.chatportPipeline === name) held.set(user.name, user.displayName ?? '');
  return held;
}
