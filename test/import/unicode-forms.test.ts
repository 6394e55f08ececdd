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

const composed = 'l\u00e9a';
const decomposed = 'le\u0301a';

describe('a name the source writes in another Unicode form than the platform holds', () => {
  it('is changed, and the changed listing and verification say it is the same letters in another form (before: "léa" against "léa", nothing more)', async () => {
    const p = 'forms';
    const dir = join(f.dir, p);
    await writeInput(dir, 'users.csv', `id,username\nu1,${p}-${composed}\n`);
    const { config } = await writePipeline(dir, `name: ${p}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: username, isGuest: { const: false } } }
`);
    const state = join(dir, 'state');
    await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    await writeInput(dir, 'users.csv', `id,username\nu1,${p}-${decomposed}\n`);
    const second = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(second.stages.users).toMatchObject({ read: 1, skipped: 1, changed: 1 });
    const listed = JSON.parse((await readFile(join(second.runDir, 'changed', 'users.ndjson'), 'utf8')).trim()) as { differences: Array<{ field: string; note?: string }> };
    const note = "the same letters in another Unicode form: the platform's is composed (NFC), the source's decomposed (NFD); unicode: NFC on the field's mapping writes the platform's form";
    expect(listed.differences).toEqual([expect.objectContaining({ field: 'name', note }), expect.objectContaining({ field: 'displayName', note })]);
    const differences = (await readFile(join(second.runDir, 'verify-differences.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { message: string });
    expect(differences).toEqual([expect.objectContaining({ message: `user "${p}-${decomposed}" is named "${p}-${composed}" on the platform (${note}), and differs there in displayName` })]);
  });
});
