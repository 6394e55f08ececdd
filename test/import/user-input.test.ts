// A team's own files and pipeline, as a new user writes them, imported through the CLI into the sandbox.
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
    const pipeline = await writeInput(dir, 'pipeline.yaml', [
      'name: mapping-typo',
      'stages:',
      '  users:',
      '    source: { path: users.csv }',
      '    key: id',
      '    mapping: { name: username, displayName: first, isGuest: { const: false } }',
      '  channels:',
      '    source: { path: channels.csv }',
      '    key: key',
      '    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } }',
      '  messages:',
      '    source: { path: messages.csv }',
      '    key: id',
      '    channel: channel',
      '    mapping:',
      '      type: { const: TEXT }',
      '      body: text',
      '      usr: author',
      '',
    ].join('\n'));
    const run = await runCli(['import', pipeline, '--state', join(dir, 'state')], chatportEnv(f));
    expect(run.stderr).toContain(`${pipeline}:18: stages.messages.mapping.usr: a messages import item has no field "usr"; did you mean "user"?`);
    expect(run.code).toBe(ExitCode.CONFIG);
    expect(await platformUsers()).toEqual([]);
  });
});

describe('a file with a UTF-8 byte order mark in a stage declared windows-1252', () => {
  it('is read as UTF-8: its header has the key column and the platform holds "Renée", not "RenÃ©e"', async () => {
    const dir = join(f.dir, 'bom-cp1252');
    // An older export in windows-1252 beside a newer one saved as Excel's "CSV UTF-8" (mark, CRLF).
    await writeInput(dir, 'users-1.csv', Buffer.from('id,username,display\r\nu1,zoe,Zo\xeb\r\n', 'latin1'));
    await writeInput(dir, 'users-2.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,username,display\r\nu2,renee,Renée\r\n', 'utf8')]));
    const pipeline = await writeInput(dir, 'pipeline.yaml', [
      'name: bom-cp1252',
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
    for await (const user of f.client.users.list()) if (user.properties?.chatportPipeline === 'bom-cp1252') held.set(user.name, user.displayName);
    expect(held).toEqual(new Map([['zoe', 'Zoë'], ['renee', 'Renée']]));
  });
});
