import { compareInt64 } from '../../src/shared/int64.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runValidate } from '../../src/pipeline/import/run-validate.js';
import { all, generatedPipeline, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const readLines = async (file: string) => (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

async function displayNames(prefix: string): Promise<Record<string, string | undefined>> {
  const users = await all(f.client.users.list());
  return Object.fromEntries(users.filter((u) => u.name.startsWith(prefix)).map((u) => [u.name, u.displayName]));
}

/** users.csv of a prefix: u2 appears again identical (line 4) and with another display name (line 5). */
function usersWithRepeatedKeys(prefix: string): string {
  return ['id,username,display', `u1,${prefix}alice,Alice`, `u2,${prefix}bob,Bob`, `u2,${prefix}bob,Bob`, `u2,${prefix}bob,Robert`, `u3,${prefix}carol,Carol`, ''].join('\n');
}

describe('a source key seen twice in a stage', () => {
  it('the same content again is a duplicate of its first line; other content is rejected with both positions; the platform holds the first', async () => {
    const dir = join(f.dir, 'reject');
    const users = await writeInput(dir, 'users.csv', usersWithRepeatedKeys('rj-'));
    const { config } = await writePipeline(dir, 'name: dup-reject\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n');
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 5, imported: 3, duplicates: 1, rejected: 1, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    const [reject] = await readLines(report.rejectsFile!);
    expect(reject).toMatchObject({ stage: 'users', file: users, line: 5 });
    expect((reject!.reasons as Array<{ message: string }>)[0]!.message).toBe(
      `key "u2" (id) was first seen at ${users}:3 with other content; the first record is the one imported. Fix the source, or set options.duplicates: last-wins to import the later one`,
    );
    expect(await readLines(join(report.runDir, 'duplicates', 'users.ndjson'))).toEqual([
      expect.objectContaining({ stage: 'users', kind: 'duplicate', file: users, line: 4, sourceKey: 'u2', of: { file: users, line: 3, index: 1 } }),
    ]);
    expect(await displayNames('rj-')).toEqual({ 'rj-alice': 'Alice', 'rj-bob': 'Bob', 'rj-carol': 'Carol' });
  });

  it('a resumed run whose stages had finished counts the duplicates from the journal, and the counts balance', async () => {
    const dir = join(f.dir, 'resume');
    await writeInput(dir, 'users.csv', usersWithRepeatedKeys('rs-'));
    const { config } = await writePipeline(dir, 'name: dup-resume\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n');
    const state = join(dir, 'state');
    const first = await runImport({ config, stateDir: state }, { client: f.client });
    // As if the process died after the stage finished, before the run ended.
    const journal = join(state, 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ t: 'run-ended' });
    await writeFile(journal, `${lines.slice(0, -1).join('\n')}\n`);

    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed.runId).toBe(first.runId);
    expect(resumed.attempt).toBe(2);
    expect(resumed.stages.users).toMatchObject({ read: 5, imported: 3, duplicates: 1, rejected: 1 });
    expect(resumed.totals.balanced).toBe(true);
  });

  it('with duplicates: last-wins the later record is the one the platform holds, in its place among the messages', async () => {
    const dir = join(f.dir, 'last-wins');
    await writeInput(dir, 'users.csv', usersWithRepeatedKeys('lw-'));
    await writeInput(dir, 'channels.csv', `key,name,members\nc1,lw-general,lw-alice|lw-bob\n`);
    await writeInput(dir, 'messages.csv', ['id,channel,author,text', 'm1,c1,lw-alice,first draft', 'm2,c1,lw-bob,two', 'm1,c1,lw-alice,corrected', 'm3,c1,lw-bob,three', 'm3,c1,lw-bob,three', ''].join('\n'));
    const { config } = await writePipeline(dir, generatedPipeline('dup-last-wins', 'duplicates: last-wins'));
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 10 } }, { client: f.client });
    // Verification expects what last-wins sent: each key's last record, in its place.
    expect(report.verification).toMatchObject({ status: 'exact', stages: { messages: { expected: 3, verified: 3 } } });

    expect(report.stages.users).toMatchObject({ read: 5, imported: 3, duplicates: 0, skipped: 2, rejected: 0 });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 3, duplicates: 1, skipped: 1, rejected: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(await displayNames('lw-')).toEqual({ 'lw-alice': 'Alice', 'lw-bob': 'Robert', 'lw-carol': 'Carol' });
    const [channel] = (await all(f.client.channels.list())).filter((c) => c.name === 'lw-general');
    const messages = await all(f.client.channels.messages(channel!.id, { pageSize: 100 }));
    expect(messages.sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body)).toEqual(['two', 'corrected', 'three']);
    const listed = await readLines(join(report.runDir, 'duplicates', 'messages.ndjson'));
    expect(listed.map((l) => [l.kind, l.line, (l.of as { line: number }).line])).toEqual([['superseded', 2, 4], ['duplicate', 5, 6]]);
  });

  it('tells duplicates from conflicts by content in any script, and the chunk holds each sent item\'s exact UTF-8', async () => {
    const dir = join(f.dir, 'multibyte');
    // u2 again identical (line 4), then with one Arabic letter changed (line 5): same length in UTF-16 and in UTF-8.
    const rows = ['id,username,display', 'u1,mb-alice,Zoë 🎉', 'u2,mb-bob,Борис مرحبا', 'u2,mb-bob,Борис مرحبا', 'u2,mb-bob,Борис مرحبأ', 'u3,mb-carol,世界 €', ''];
    const users = await writeInput(dir, 'users.csv', rows.join('\n'));
    const { config } = await writePipeline(dir, 'name: dup-multibyte\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n');
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: 5, imported: 3, duplicates: 1, rejected: 1, skipped: 0 });
    const [reject] = await readLines(report.rejectsFile!);
    expect(reject).toMatchObject({ stage: 'users', file: users, line: 5 });
    expect(await displayNames('mb-')).toEqual({ 'mb-alice': 'Zoë 🎉', 'mb-bob': 'Борис مرحبا', 'mb-carol': '世界 €' });
    const chunk = await readFile(join(report.runDir, 'chunks', 'users', '000000.json'));
    const items = JSON.parse(chunk.toString('utf8')) as Array<Record<string, unknown>>;
    expect(items.map((i) => i.displayName)).toEqual(['Zoë 🎉', 'Борис مرحبا', '世界 €']);
    expect(chunk.equals(Buffer.from(`[${items.map((i) => JSON.stringify(i)).join(',')}]`, 'utf8'))).toBe(true);
  });
});

describe('one file named by two locations of a stage', () => {
  it('is read once: its records are not counted again as duplicates of themselves; another file with the same rows still is read', async () => {
    const dir = join(f.dir, 'listed-twice');
    const users = await writeInput(dir, 'users.csv', ['id,username,display', 'u1,lt-alice,Alice', 'u2,lt-bob,Bob', ''].join('\n'));
    await writeInput(dir, 'copy/users.csv', await readFile(users));
    const { config } = await writePipeline(
      dir,
      'name: listed-twice\nstages:\n  users:\n    source: { path: [users.csv, "*.csv", ./users.csv, "copy/*.csv"] }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n',
    );
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 4, imported: 2, duplicates: 2, rejected: 0, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    expect((await readLines(join(report.runDir, 'duplicates', 'users.ndjson'))).map((d) => d.file)).toEqual([join(dir, 'copy/users.csv'), join(dir, 'copy/users.csv')]);
    expect(await displayNames('lt-')).toEqual({ 'lt-alice': 'Alice', 'lt-bob': 'Bob' });
  });
});

describe('the duplicates listing of a validation run again in its --out folder', () => {
  it('holds no line of the earlier validation once the source has no duplicate any more', async () => {
    const dir = join(f.dir, 'dup-validate');
    await writeInput(dir, 'users.csv', usersWithRepeatedKeys('dv-'));
    const { config } = await writePipeline(dir, 'name: dup-validate\nstages:\n  users:\n    source: { path: users.csv }\n    key: id\n    mapping: { name: username, displayName: display, isGuest: { const: false } }\n');
    const out = join(dir, 'validate');
    const listing = join(out, 'runs', 'validate', 'duplicates', 'users.ndjson');
    expect((await runValidate(config, { outDir: out })).stages.users).toMatchObject({ duplicates: 1 });
    expect(await readLines(listing)).toHaveLength(1);

    await writeInput(dir, 'users.csv', ['id,username,display', 'u1,dv-alice,Alice', 'u2,dv-bob,Bob', ''].join('\n'));
    expect((await runValidate(config, { outDir: out })).stages.users).toMatchObject({ read: 2, duplicates: 0 });
    expect(await readFile(listing, 'utf8').catch(() => '')).toBe('');
  });
});
