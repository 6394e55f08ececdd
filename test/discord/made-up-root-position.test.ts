import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { writePipeline, type ImportFixture } from '../import/support.js';
import { LOBBY, LOBBY_FILE, ana, bo, file, fixtureWithExport, message, snowflakeAt } from './hand-made-export.js';

/**
 * The root chatport puts where a thread's deleted starter was is no record of the files: reports name it
 * by the thread's file and the starter's id. Run 1 stands for an earlier version (its lobby file says it
 * ends before the starter, so no root is made and the thread's messages are orphans at the lobby's end);
 * run 2 adds the root after them, which verification reports out of order, naming it.
 */
const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`;
const THREAD = snowflakeAt('2024-03-01T10:04:30.000+01:00');
const THREAD_FILE = `Guild - Text Channels - gone [${THREAD}].json`;
const gone = { id: THREAD, type: 'GuildPublicThread', categoryId: LOBBY.id, category: 'lobby', name: 'gone', topic: null };
const m = (minute: number, content: string, author = ana) => message(snowflakeAt(at(minute), minute), minute, content, author);
const lobby = [m(1, 'hello'), m(3, 'before the thread'), m(9, 'back in the channel', bo)];

let f: ImportFixture;
const reports: RunReport[] = [];

beforeAll(async () => {
  let dir: string;
  ({ f, dir } = await fixtureWithExport());
  await writeFile(join(dir, THREAD_FILE), file(gone, [m(5, 'its starter was deleted', bo)]));
  for (const range of [{ after: null, before: at(4) }, { after: null, before: null }]) {
    await writeFile(join(dir, LOBBY_FILE), file(LOBBY, lobby, range));
    const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n`);
    reports.push(await runImport({ config, stateDir: join(f.dir, `state-${reports.length}`), verify: {} }, { client: f.client }));
  }
}, 60_000);
afterAll(() => f?.close());

describe('the root made for a deleted thread starter, in reports', () => {
  it('is named by its thread\'s file and the starter\'s id, not as record -1', async () => {
    const verification = reports[1]!.verification!;
    expect(verification.status).toBe('differences');
    const listed = await readFile((verification as { files: { differences: string } }).files.differences, 'utf8');
    expect(listed).toContain('out-of-order');
    expect(listed).toContain(`${THREAD_FILE}, message ${THREAD} (its deleted starter`);
    expect(listed).not.toContain('"index":-1');
  });
});
