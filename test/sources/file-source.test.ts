import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInputSource } from '../../src/sources/index.js';
import { InputMissingError } from '../../src/shared/errors.js';
import { listUris, readAll } from './read-all.js';
import { describeSourceContract } from './source-contract.js';

let dir: string;
const gz = gzipSync(Buffer.from('id,name\n1,a\n'));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatport-files-'));
  await mkdir(join(dir, 'in/2026/11'), { recursive: true });
  await writeFile(join(dir, 'in/users.csv'), 'id,name\n1,a\n');
  await writeFile(join(dir, 'in/2026/11/b.csv'), 'x\n');
  await writeFile(join(dir, 'in/2026/11/a.csv.gz'), gz);
  await writeFile(join(dir, 'in/2026/notes.txt'), 'n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('file source', () => {
  it('lists one file with its size and reads its bytes', async () => {
    const inputs = [];
    for await (const input of createInputSource(join(dir, 'in/users.csv')).listInputs()) inputs.push(input);
    expect(inputs.map((i) => [i.uri, i.size])).toEqual([[join(dir, 'in/users.csv'), 12]]);
    expect((await readAll(inputs[0]!.open())).toString()).toBe('id,name\n1,a\n');
  });

  it('resolves relative paths and globs against cwd, sorted, and ** crosses folders', async () => {
    const source = createInputSource('in/**/*.csv*', { file: { cwd: dir } });
    expect(await listUris(source)).toEqual([join(dir, 'in/2026/11/a.csv.gz'), join(dir, 'in/2026/11/b.csv'), join(dir, 'in/users.csv')]);
    expect(await listUris(createInputSource('in/*.csv', { file: { cwd: dir } }))).toEqual([join(dir, 'in/users.csv')]);
  });

  it('lists every file below a directory and accepts file: URLs', async () => {
    expect(await listUris(createInputSource(pathToFileURL(join(dir, 'in/2026')).href))).toEqual([
      join(dir, 'in/2026/11/a.csv.gz'),
      join(dir, 'in/2026/11/b.csv'),
      join(dir, 'in/2026/notes.txt'),
    ]);
  });

  it('passes gzip objects through as the same bytes', async () => {
    for await (const input of createInputSource(join(dir, 'in/**/*.gz')).listInputs()) {
      expect((await readAll(input.open())).equals(gz)).toBe(true);
    }
  });

  it('takes a path that exists as that file or folder even when it reads as a glob', async () => {
    await mkdir(join(dir, 'odd/keep [old]'), { recursive: true });
    for (const name of ['export [1].csv', 'export 1.csv', 'users (1).csv', 'keep [old]/a.csv']) await writeFile(join(dir, 'odd', name), 'id\n1\n');
    expect(await listUris(createInputSource('odd/export [1].csv', { file: { cwd: dir } }))).toEqual([join(dir, 'odd/export [1].csv')]);
    expect(await listUris(createInputSource(join(dir, 'odd/users (1).csv')))).toEqual([join(dir, 'odd/users (1).csv')]);
    expect(await listUris(createInputSource(join(dir, 'odd/keep [old]')))).toEqual([join(dir, 'odd/keep [old]/a.csv')]);
    // A glob that names no file as written is still a glob.
    expect(await listUris(createInputSource(join(dir, 'odd/export [0-9].csv')))).toEqual([join(dir, 'odd/export 1.csv')]);
  });

  it('names the missing path, and a glob with no match, in InputMissingError', async () => {
    const missing = join(dir, 'in/nope.csv');
    await expect(listUris(createInputSource(missing))).rejects.toThrow(InputMissingError);
    await expect(listUris(createInputSource(missing))).rejects.toThrow(missing);
    await expect(listUris(createInputSource(join(dir, 'in/**/*.json')))).rejects.toMatchObject({ code: 'INPUT_MISSING', message: expect.stringContaining('*.json') });
  });

  it('reports a file deleted after listing as InputMissingError on open', async () => {
    const path = join(dir, 'in/vanishing.csv');
    await writeFile(path, 'v');
    const inputs = [];
    for await (const input of createInputSource(path).listInputs()) inputs.push(input);
    await rm(path);
    await expect(readAll(inputs[0]!.open())).rejects.toMatchObject({ code: 'INPUT_MISSING', details: { path } });
  });
});

describeSourceContract('local files', () => {
  const root = join(dir, 'contract');
  return {
    async put(path, bytes) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), bytes);
    },
    source: (location) => createInputSource(location, { file: { cwd: root } }),
    uri: (path) => join(root, path),
  };
});
