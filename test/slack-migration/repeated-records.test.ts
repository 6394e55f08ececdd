import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/**
 * A day file holding the same message twice (an export merged from two overlapping ones): one message, sent
 * once and counted a duplicate; a different message that shares its ts is still a message of its own.
 */
describe('a Slack message repeated with the same ts and the same content', () => {
  it('is imported once and counted a duplicate; another message of that ts is imported beside it', async () => {
    const first = { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'said once' };
    const other = { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'said at the same time' };
    const later = { type: 'message', ts: '1600100005.000100', user: 'U1', text: 'later' };
    const root = await writeExportFolder('chatport-slack-repeat-', {
      'users.json': [{ id: 'U1', team_id: 'TR', name: 'rep-ana' }],
      'channels.json': [{ id: 'C1', name: 'rep-general', members: ['U1'] }],
      'rep-general/2020-09-14.json': [first, other, { ...first }, later, { ...other }],
    });
    const dir = join(f.dir, 'repeat');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: slack-repeat\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 3, duplicates: 2, rejected: 0, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });
    const lines = (await readFile(join(dir, 'state', 'runs', report.runId, 'duplicates', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; index: number });
    expect(lines.map((l) => [l.kind, l.index])).toEqual([['duplicate', 2], ['duplicate', 4]]);

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.properties?.chatportKey === 'TR/C1')!;
    expect((await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body)).toEqual(['said once', 'said at the same time', 'later']);
  });
});
