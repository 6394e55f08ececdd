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
