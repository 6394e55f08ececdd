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

const PIPELINE = `name: encoding
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false } }
  channels:
    source: { path: channels.csv, encoding: windows-1252 }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } }
  messages:
    source: { path: messages.ndjson }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author }
`;

describe('text encodings over the import', () => {
  it('a record with an invalid UTF-8 byte is rejected at its file:line, every other one imported; windows-1252 is decoded', async () => {
    const dir = join(f.dir, 'bytes');
    const users = await writeInput(dir, 'users.csv', Buffer.concat([Buffer.from('id,username,display\nu1,alice,Alice\nu2,bob,B'), Buffer.from([0xf6]), Buffer.from('b\nu3,carol,Zoë\n')]));
    await writeInput(dir, 'channels.csv', Buffer.concat([Buffer.from('key,name,members\nc1,general,alice|carol\nc2,caf'), Buffer.from([0xe9]), Buffer.from(',alice\n')]));
    const messages = await writeInput(
      dir,
      'messages.ndjson',
      Buffer.concat([
        Buffer.from('{"id":"m1","channel":"c1","author":"alice","text":"price: 10 \u20ac"}\n{"id":"m2","channel":"c1","author":"carol","text":"na'),
        Buffer.from([0xef, 0x76]),
        Buffer.from('"}\n{"id":"m3","channel":"c2","author":"alice","text":"ok"}\n'),
      ]),
    );
    const { config } = await writePipeline(dir, PIPELINE);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.totals).toMatchObject({ read: 8, imported: 6, rejected: 2, balanced: true });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { file: string; line: number; reasons: Array<{ message: string; sourceField?: string; found: string }> });
    expect(rejects.map((r) => [r.file, r.line, r.reasons[0]!.sourceField, r.reasons[0]!.message, r.reasons[0]!.found])).toEqual([
      [users, 3, 'display', 'invalid UTF-8 in field "display": byte 0xF6 at character 2 cannot be read as UTF-8 (shown as U+FFFD here)', '"B\uFFFDb"'],
      [messages, 2, 'text', 'invalid UTF-8 in field "text": byte 0xEF at character 3 cannot be read as UTF-8 (shown as U+FFFD here)', '"na\uFFFDv"'],
    ]);
    const names = (await all(f.client.users.list())).map((u) => `${u.name}:${u.displayName}`).sort();
    expect(names).toEqual(['alice:Alice', 'carol:Zoë']);
    expect((await all(f.client.channels.list())).map((c) => c.name).sort()).toEqual(['café', 'general']);
  });
});
