import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const readLines = async (file: string) => (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('rejects.ndjson', () => {
  it('lists every rejected record as the source holds it, whichever check rejected it, so the file can be fixed and fed back', async () => {
    const dir = join(f.dir, 'raw-rejects');
    await writeInput(dir, 'users.csv', 'id,username\nu1,rf-alice\n');
    await writeInput(dir, 'channels.ndjson', '{"key":"c1","type":"PUBLIC","name":"rf-general"}\n');
    await writeInput(dir, 'members.csv', 'channel,user\nc1,rf-alice\nc1,rf-carl\n');
    const messages = [
      { id: 'm1', channel: 'c1', author: 'rf-alice', text: 'one' },
      { id: 'm2', channel: 'c1', author: 'rf-carl', text: 'by a user the platform lacks' },
      { id: 'm3', channel: 'c1', author: 'rf-alice', text: '' },
      { id: 'm1', channel: 'c1', author: 'rf-alice', text: 'one, other content' },
    ];
    await writeInput(dir, 'messages.ndjson', messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const { config } = await writePipeline(
      dir,
      [
        'name: raw-rejects',
        'stages:',
        '  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: username, isGuest: { const: false } } }',
        '  channels: { source: { path: channels.ndjson }, key: key, mapping: { type: type, name: name, displayName: name, members: { const: [] } } }',
        '  members: { source: { path: members.csv }, key: [channel, user], channel: channel, mapping: { username: user } }',
        '  messages: { source: { path: messages.ndjson }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }',
        '',
      ].join('\n'),
    );
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.stages.members).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 1, rejected: 3 });
    const rejects = await readLines(report.rejectsFile!);
    expect(rejects.map((r) => [r.stage, r.line, r.record])).toEqual([
      ['members', 3, { channel: 'c1', user: 'rf-carl' }],
      ['messages', 2, messages[1]],
      ['messages', 3, messages[2]],
      ['messages', 4, messages[3]],
    ]);
  });
});
