/**
 * Every skipped record is listed in the run folder's skipped/<stage>.ndjson (docs/accounting.md): where it
 * is, which rule left it out (its index in the stage's `skip` list, -1 for a built-in one) and why, with the
 * source record; the report names the folder (text, --json, report.html). A trial's cut is counted, not listed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runValidate } from '../../src/pipeline/import/run-validate.js';
import { formatReportTable, type RunReport } from '../../src/pipeline/report.js';
import { runCli, skippedLines, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const pipeline = (name: string) => `name: ${name}
options: { chunkRecords: 5, concurrency: 2 }
stages:
  users:
    source: { path: users.csv }
    key: id
    skip:
      - { field: status, equals: deleted }
      - { field: username, matches: "^bot-" }
    mapping: { name: username, displayName: display, isGuest: { const: false } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } }
  messages:
    source: { path: messages.csv }
    key: id
    channel: channel
    skip:
      - { field: text, equals: "(deleted)" }
    mapping: { type: { const: TEXT }, user: author, body: text }
`;

async function writeSource(dir: string, prefix: string): Promise<void> {
  await writeInput(dir, 'users.csv', [
    'id,username,display,status',
    `u0,${prefix}ana,Ana,active`,
    `u1,${prefix}ben,Ben,deleted`,
    `u2,bot-${prefix}x,Bot,active`,
    `u3,${prefix}cy,Cy,active`,
    ',,,',
    `u4,${prefix}dee,Dee,deleted`,
    ',,,',
    '',
  ].join('\n'));
  await writeInput(dir, 'channels.csv', `key,name,members\nc0,${prefix}general,${prefix}ana|${prefix}cy\n`);
  const messages = Array.from({ length: 12 }, (_, i) => `m${i},c0,${prefix}${i % 2 ? 'ana' : 'cy'},${i % 4 === 3 ? '(deleted)' : `hello ${i}`}`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text\n${messages.join('\n')}\n`);
}

describe('skipped records listed in the run folder', () => {
  it('lists each record a skip rule or an empty row leaves out, as many as the report counts skipped', async () => {
    const dir = join(f.dir, 'skip-csv');
    await writeSource(dir, 'skl-');
    const { config } = await writePipeline(dir, pipeline('skip-csv'));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.status).toBe('succeeded');
    expect(report.stages.users).toMatchObject({ read: 7, imported: 2, skipped: 5 });
    expect(report.stages.messages).toMatchObject({ read: 12, imported: 9, skipped: 3 });

    const users = await skippedLines(report.runDir, 'users');
    expect(users).toHaveLength(report.stages.users!.skipped);
    const usersFile = join(dir, 'users.csv');
    expect(users).toEqual([
      { stage: 'users', file: usersFile, line: 3, index: 1, rule: 0, because: expect.stringContaining('status'), record: { id: 'u1', username: 'skl-ben', display: 'Ben', status: 'deleted' } },
      { stage: 'users', file: usersFile, line: 4, index: 2, rule: 1, because: expect.stringContaining('username'), record: { id: 'u2', username: 'bot-skl-x', display: 'Bot', status: 'active' } },
      { stage: 'users', file: usersFile, line: 6, index: 4, rule: -1, because: expect.stringMatching(/^an empty row/), record: { id: '', username: '', display: '', status: '' } },
      { stage: 'users', file: usersFile, line: 7, index: 5, rule: 0, because: expect.stringContaining('status'), record: expect.objectContaining({ id: 'u4' }) },
      { stage: 'users', file: usersFile, line: 8, index: 6, rule: -1, because: expect.stringMatching(/^an empty row/), record: expect.objectContaining({ id: '' }) },
    ]);
    const messages = await skippedLines(report.runDir, 'messages');
    expect(messages).toHaveLength(report.stages.messages!.skipped);
    expect(messages.map((m) => [m.record?.id, m.rule, m.line])).toEqual([['m3', 0, 5], ['m7', 0, 9], ['m11', 0, 13]]);
    // No stage without skips gets a file.
    expect(await skippedLines(report.runDir, 'channels')).toEqual([]);
    expect(report.totals.skipped).toBe(users.length + messages.length);
  }, 60_000);

  it('is named by the report: --json, the text and report.html', async () => {
    const dir = join(f.dir, 'skip-named');
    await writeSource(dir, 'skn-');
    const { config } = await writePipeline(dir, pipeline('skip-named'));
    const report: RunReport = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    const folder = join(report.runDir, 'skipped');
    expect(report.skippedDir).toBe(folder);
    expect(JSON.parse(await readFile(join(report.runDir, 'report.json'), 'utf8'))).toMatchObject({ skippedDir: folder });
    expect(formatReportTable(report)).toContain(`skipped (left out on purpose, each with its rule and reason): ${folder}/`);
    expect(await readFile(join(report.runDir, 'report.html'), 'utf8')).toContain(`<dt>skipped records</dt><dd><code>${folder}</code></dd>`);
  }, 60_000);

  it('names no folder when nothing was skipped', async () => {
    const dir = join(f.dir, 'skip-none');
    await writeInput(dir, 'users.csv', 'id,username,display,status\nu0,skz-ana,Ana,active\n');
    const { config } = await writePipeline(dir, `name: skip-none\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 1, skipped: 0 });
    expect(report.skippedDir).toBeUndefined();
    expect(formatReportTable(report)).not.toContain('skipped (left out');
  }, 60_000);

  it('a trial run lists what its rules skipped, not the records the trial left out', async () => {
    const dir = join(f.dir, 'skip-trial');
    await writeSource(dir, 'skt-');
    const { config } = await writePipeline(dir, pipeline('skip-trial'));
    config.trial = { limit: 4 };
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    // users: u0..u3 taken (u1, u2 skipped by rules), 3 rows beyond the limit.
    expect(report.stages.users).toMatchObject({ read: 7, imported: 2, skipped: 5 });
    const users = await skippedLines(report.runDir, 'users');
    expect(users.map((u) => u.record?.id)).toEqual(['u1', 'u2']);
    // messages: m0..m3 taken (m3 skipped by its rule), 8 beyond the limit.
    expect(report.stages.messages).toMatchObject({ read: 12, imported: 3, skipped: 9 });
    expect((await skippedLines(report.runDir, 'messages')).map((m) => m.record?.id)).toEqual(['m3']);
  }, 60_000);

  it('validate lists them in its folder, and a later validation there without skips leaves no earlier line', async () => {
    const dir = join(f.dir, 'skip-validate');
    await writeSource(dir, 'skv-');
    const { config, path } = await writePipeline(dir, pipeline('skip-validate'));
    const out = join(dir, 'validate');
    const first = await runValidate(config, { outDir: out });
    expect(first.stages.users).toMatchObject({ skipped: 5 });
    expect(first.skippedDir).toBe(join(out, 'runs', 'validate', 'skipped'));
    expect(await skippedLines(join(out, 'runs', 'validate'), 'users')).toHaveLength(5);
    const cli = await runCli(['validate', path, '--out', out]);
    expect(cli.stdout).toContain(`skipped (left out on purpose, each with its rule and reason): ${first.skippedDir}/`);

    // The input corrected: nothing is skipped any more.
    await writeInput(dir, 'users.csv', 'id,username,display,status\nu0,skv-ana,Ana,active\nu3,skv-cy,Cy,active\n');
    await writeInput(dir, 'messages.csv', 'id,channel,author,text\nm0,c0,skv-ana,hello\n');
    const second = await runValidate(config, { outDir: out });
    expect(second.totals.skipped).toBe(0);
    expect(second.skippedDir).toBeUndefined();
    expect(await skippedLines(join(out, 'runs', 'validate'), 'users')).toEqual([]);
    expect(await skippedLines(join(out, 'runs', 'validate'), 'messages')).toEqual([]);
  }, 60_000);
});
