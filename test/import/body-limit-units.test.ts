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

const pipeline = `name: emoji-bodies
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: name, displayName: name, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { const: [eb-a] } } }
  messages: { source: { path: messages.ndjson }, key: id, channel: ch, mapping: { type: { const: TEXT }, user: { const: eb-a }, body: text } }
`;

describe('a body at the limit counted in UTF-16 code units', () => {
  it('20,000 emoji (40,000 code units) arrive whole; 20,001 are rejected with a reason that says the unit and both counts', async () => {
    const dir = join(f.dir, 'emoji-bodies');
    await writeInput(dir, 'users.csv', 'id,name\n1,eb-a\n');
    await writeInput(dir, 'channels.csv', 'key,name\nc1,eb-room\n');
    const rows = [{ id: 'm1', ch: 'c1', text: '😀'.repeat(20_000) }, { id: 'm2', ch: 'c1', text: '😀'.repeat(20_001) }];
    await writeInput(dir, 'messages.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { config } = await writePipeline(dir, pipeline);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });

    expect(report.stages.messages).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    const [room] = (await all(f.client.channels.list({ pageSize: 100 }))).filter((c) => c.name === 'eb-room');
    const held = await all(f.client.channels.messages(room!.id));
    expect(held.map((m) => m.body)).toEqual(['😀'.repeat(20_000)]);
    const [reject] = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { line: number; reasons: Array<{ field: string; message: string }> });
    expect(reject!.line).toBe(2);
    expect(reject!.reasons.map((r) => r.message)).toEqual([
      `body: expected text of 1 to 40000 characters (UTF-16 code units: a character beyond U+FFFF, such as an emoji, counts 2), found "${'😀'.repeat(30)}"… (40002 UTF-16 code units, 20001 characters)`,
    ]);
  });
});
