import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runValidate } from '../../src/index.js';
import { writeInput, writePipeline } from './support.js';

/** A service validating in a loop: each call must leave nothing behind, and still hand back what it found. */
let dir: string;
let temp: string;
const savedTmp = process.env.TMPDIR;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatport-validate-temp-'));
  // os.tmpdir() reads TMPDIR: the folders runValidate makes land here, where no other run writes.
  temp = join(dir, 'tmp');
  await writeInput(temp, '.keep', '');
  process.env.TMPDIR = temp;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(dir, { recursive: true, force: true });
});

describe('runValidate without outDir', () => {
  it('removes its temporary folder and hands back the first rejects of each stage', async () => {
    await writeInput(dir, 'users.csv', 'id,username,guest\nu1,ann,no\nu2,bob,maybe\nu3,cy,perhaps\n');
    const { config } = await writePipeline(dir, `name: validate-temp
stages:
  users:
    source: { path: users.csv }
    key: id
    mapping: { name: username, displayName: username, isGuest: { field: guest, type: boolean } }
`);
    for (let i = 0; i < 3; i++) {
      const result = await runValidate(config);
      expect(result.totals).toMatchObject({ read: 3, rejected: 2 });
      expect(result.rejectsFiles).toEqual({});
      expect(result.rejects.users?.map((r) => [r.line, r.reasons[0]?.found])).toEqual([[3, '"maybe"'], [4, '"perhaps"']]);
    }
    expect(await readdir(temp)).toEqual(['.keep']);
    const few = await runValidate(config, { keepRejects: 1 });
    expect(few.rejects.users).toHaveLength(1);
    // A folder given is the caller's: its files stay, and the result names them.
    const out = join(dir, 'out');
    const kept = await runValidate(config, { outDir: out });
    expect(kept.rejectsFiles.users).toBe(join(out, 'runs', 'validate', 'rejects', 'users.ndjson'));
    expect(kept.rejects.users).toHaveLength(2);
    expect(await readdir(temp)).toEqual(['.keep']);
  });
});
