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

/** One workspace of user U1 and channel C1 (`<name>-general`), its day files as given, migrated with verification. */
async function migrate(name: string, team: string, days: Record<string, unknown[]>) {
  const files: Record<string, unknown> = { 'users.json': [{ id: 'U1', team_id: team, name: `${name}-ana` }], 'channels.json': [{ id: 'C1', name: `${name}-general`, members: ['U1'] }] };
  for (const [day, messages] of Object.entries(days)) files[`${name}-general/${day}.json`] = messages;
  const root = await writeExportFolder(`chatport-slack-${name}-`, files);
  const dir = join(f.dir, name);
  await mkdir(dir);
  const { config } = await writePipeline(dir, `name: slack-${name}\nslack:\n  export: ${root}\n`);
  const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
  return { dir, report };
}

/**
 * A day file holding the same message twice (an export merged from two overlapping ones): one message, sent
 * once and counted a duplicate; a different message that shares its ts is still a message of its own.
 */
describe('a Slack message repeated with the same ts and the same content', () => {
  it('is imported once and counted a duplicate; another message of that ts is imported beside it', async () => {
    const first = { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'said once' };
    const other = { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'said at the same time' };
    const later = { type: 'message', ts: '1600100005.000100', user: 'U1', text: 'later' };
    const { dir, report } = await migrate('rep', 'TR', { '2020-09-14': [first, other, { ...first }, later, { ...other }] });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 3, duplicates: 2, rejected: 0, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });
    const lines = (await readFile(join(dir, 'state', 'runs', report.runId, 'duplicates', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; index: number });
    expect(lines.map((l) => [l.kind, l.index])).toEqual([['duplicate', 2], ['duplicate', 4]]);

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.properties?.chatportKey === 'TR/C1')!;
    expect((await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body)).toEqual(['said once', 'said at the same time', 'later']);
  });

  /**
   * A message near midnight filed in two day files (exports merged across a time zone change): its copy in the
   * next day file comes after later messages, and is still the same message; a different message of that ts
   * there is a message of its own (`~2`), not a clash of keys.
   */
  it('in the next day file, after later messages: a duplicate when the same, its own message (~2) when not', async () => {
    const nearMidnight = { type: 'message', ts: '1600127990.000100', user: 'U1', text: 'near midnight' };
    const after = { type: 'message', ts: '1600127995.000100', user: 'U1', text: 'after it' };
    const other = { type: 'message', ts: '1600127990.000100', user: 'U1', text: 'another of that ts' };
    const { report } = await migrate('repd', 'TRD', {
      '2020-09-14': [nearMidnight, after],
      '2020-09-15': [{ ...nearMidnight }, other, { type: 'message', ts: '1600200000.000100', user: 'U1', text: 'next day' }],
    });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 4, duplicates: 1, rejected: 0, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.properties?.chatportKey === 'TRD/C1')!;
    const messages = await all(f.client.channels.messages(channel.id, { pageSize: 100 }));
    // In ts order: the day file before is held until this one is read (docs/slack-migration.md "Day files in ts order").
    expect(messages.map((m) => m.body)).toEqual(['near midnight', 'another of that ts', 'after it', 'next day']);
    expect(messages.map((m) => (m.properties?.source as { id?: string }).id)).toEqual(['C1/1600127990.000100', 'C1/1600127990.000100~2', 'C1/1600127995.000100', 'C1/1600200000.000100']);
  });
});
