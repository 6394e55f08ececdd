import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSlackExport, readConversationDays, readSlackUsers, readWholeFile } from '../../src/sources/slack/index.js';
import { compareTs, tsToIso } from '../../src/transform/slack/records.js';
import { compact } from '../../src/transform/slack/source-properties.js';
import { minimalExportEntries, writeRawZip, type RawZipEntry } from './helpers/zip-writer.js';
import { useTempDir } from './helpers/temp.js';

/** Day files are read whole (`readWhole`): one read and one inflate per entry, no stream. */
describe('reading whole files from a zip', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await useTempDir();
  });
  const write = (name: string, entries: RawZipEntry[]) => writeRawZip(dir, name, entries);
  const day = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ type: 'message', ts: `1600000000.${String(i).padStart(6, '0')}`, text: `message ${i} ${'é'.repeat(i % 7)}` })));

  it('gives the same bytes for deflated and stored entries, read in any order and at the same time', async () => {
    const texts = [day(3), day(400), day(1), day(2000)];
    const entries = texts.flatMap((data, i) => [
      { name: `general/2020-01-0${i + 1}.json`, data },
      { name: `stored/2020-01-0${i + 1}.json`, data, compress: false },
    ]);
    const exp = await openSlackExport(await write('mixed.zip', minimalExportEntries(entries)));
    try {
      // All at once: reads that overlap must not share a buffer.
      const read = await Promise.all(exp.files.map(async (f) => [f, await readWholeFile(exp, f, 1e9)] as const));
      for (const [i, text] of texts.entries()) {
        expect(read.find(([f]) => f === `general/2020-01-0${i + 1}.json`)![1]).toBe(text);
        expect(read.find(([f]) => f === `stored/2020-01-0${i + 1}.json`)![1]).toBe(text);
      }
      // Backwards, one at a time, after a streamed read of the same archive.
      expect((await collectValues(readSlackUsers(exp)))[0]).toMatchObject({ id: 'U1' });
      for (const i of [3, 2, 1, 0]) expect(await readWholeFile(exp, `general/2020-01-0${i + 1}.json`, 1e9)).toBe(texts[i]);
    } finally {
      await exp.close();
    }
  });

  it('parses each day file of a conversation whole, in date order', async () => {
    const exp = await openSlackExport(await write('days.zip', minimalExportEntries([
      { name: 'general/2020-01-02.json', data: `${day(2)}\n` },
      { name: 'general/2020-01-01.json', data: '  \n' },
    ])));
    try {
      const days = await collectValues(readConversationDays(exp, ['general/2020-01-01.json', 'general/2020-01-02.json']));
      expect(days).toEqual([
        { file: 'general/2020-01-01.json', date: '2020-01-01', messages: [], invalidBytes: 0, surrogateEscapes: false },
        { file: 'general/2020-01-02.json', date: '2020-01-02', messages: JSON.parse(day(2)), invalidBytes: 0, surrogateEscapes: false },
      ]);
    } finally {
      await exp.close();
    }
  });

  it('stops an entry that inflates to less than it declared', async () => {
    const exp = await openSlackExport(await write('short.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: day(5), declaredSize: day(5).length + 100 }])));
    try {
      await expect(readWholeFile(exp, 'general/2020-01-01.json', 1e9)).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB', message: expect.stringContaining('too few bytes') });
    } finally {
      await exp.close();
    }
  });

  it('refuses a file declared larger than the whole-file limit without inflating it', async () => {
    const exp = await openSlackExport(await write('big.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: day(100) }])));
    try {
      await expect(readWholeFile(exp, 'general/2020-01-01.json', 1000)).rejects.toMatchObject({
        code: 'SLACK_ZIP_BOMB',
        message: expect.stringContaining('the limit for one day file'),
        details: { entry: 'general/2020-01-01.json' },
      });
    } finally {
      await exp.close();
    }
  });

  it('lists the same files when opened again with the names pass 1 already holds', async () => {
    const entries = minimalExportEntries([{ name: 'general/2020-01-01.json', data: day(2) }, { name: 'general/2020-01-02.json', data: day(1) }]);
    const path = await write('known.zip', entries);
    const first = await openSlackExport(path);
    const files = [...first.files];
    await first.close();
    const knownPaths = new Map([['general/2020-01-02.json', 'general/2020-01-02.json'], ['elsewhere/2020-01-01.json', 'elsewhere/2020-01-01.json']]);
    const again = await openSlackExport(path, { knownPaths });
    try {
      expect(again.files).toEqual(files);
      expect(await readWholeFile(again, 'general/2020-01-02.json', 1e9)).toBe(day(1));
    } finally {
      await again.close();
    }
  });

  it('names a file that is not in the export', async () => {
    const exp = await openSlackExport(await write('plain.zip', minimalExportEntries()));
    try {
      await expect(readWholeFile(exp, 'general/2020-01-01.json', 1e9)).rejects.toMatchObject({ code: 'SLACK_FILE_MISSING' });
      expect(exp.has('users.json')).toBe(true);
      expect(exp.has('general/2020-01-01.json')).toBe(false);
    } finally {
      await exp.close();
    }
  });
});

describe('reading whole files from a folder', () => {
  it('reads the file and refuses one over the limit', async () => {
    const dir = await useTempDir();
    await mkdir(join(dir, 'general'));
    await writeFile(join(dir, 'users.json'), '[]');
    await writeFile(join(dir, 'general', '2020-01-01.json'), '\ufeff[{"type":"message","ts":"1.000001","text":"hi"}]');
    const exp = await openSlackExport(dir);
    expect(await readWholeFile(exp, 'general/2020-01-01.json', 1e6)).toBe('[{"type":"message","ts":"1.000001","text":"hi"}]');
    await expect(readWholeFile(exp, 'general/2020-01-01.json', 10)).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB' });
    await expect(readWholeFile(exp, 'general/2020-01-02.json', 1e6)).rejects.toMatchObject({ code: 'SLACK_FILE_MISSING' });
    await exp.close();
  });

  it('reads small files at once and large ones in the background, the same bytes either way', async () => {
    const dir = await useTempDir();
    await mkdir(join(dir, 'general'));
    await writeFile(join(dir, 'users.json'), '[]');
    const small = JSON.stringify([{ type: 'message', ts: '1.000001', text: 'é'.repeat(1000) }]);
    const large = JSON.stringify(Array.from({ length: 6000 }, (_, i) => ({ type: 'message', ts: `2.${String(i).padStart(6, '0')}`, text: `message ${i} ${'é'.repeat(i % 9)}` })));
    expect(Buffer.byteLength(large)).toBeGreaterThan(256 * 1024);
    await writeFile(join(dir, 'general', '2020-01-01.json'), small);
    await writeFile(join(dir, 'general', '2020-01-02.json'), large);
    const exp = await openSlackExport(dir);
    const [a, b] = await Promise.all([readWholeFile(exp, 'general/2020-01-02.json', 1e9), readWholeFile(exp, 'general/2020-01-01.json', 1e9)]);
    expect(a).toBe(large);
    expect(b).toBe(small);
    await exp.close();
  });
});

describe('ts arithmetic without allocations', () => {
  it.each([
    ['1600000000.000100', '1600000000.000100', 0],
    ['1600000000.000100', '1600000000.000101', -1],
    ['1600000000.5', '1600000000.50', 0],
    ['1600000000.5', '1600000000.49', 1],
    ['1600000000', '1600000000.0', 0],
    ['1600000000', '1600000000.000001', -1],
    ['999999999.9', '1000000000.0', -1],
    ['1700000000.1', '1600000000.9', 1],
  ])('compareTs(%s, %s) has the sign %i, and the reverse the opposite', (a, b, sign) => {
    expect(Math.sign(compareTs(a, b))).toBe(sign);
    expect(Math.sign(compareTs(b, a))).toBe(-sign || 0);
  });

  it('sorts like exact decimal numbers', () => {
    const ts = ['1600000000.000100', '999999999.999999', '1600000000.0001', '1600000000', '1600000001.000000', '1600000000.00009'];
    expect([...ts].sort(compareTs)).toEqual(['999999999.999999', '1600000000', '1600000000.00009', '1600000000.000100', '1600000000.0001', '1600000001.000000']);
  });

  it('converts a ts to ISO time at millisecond precision', () => {
    expect(tsToIso('1600000000.123456')).toBe('2020-09-13T12:26:40.123Z');
    expect(tsToIso('1600000000.5')).toBe('2020-09-13T12:26:40.500Z');
    expect(tsToIso('1600000000')).toBe('2020-09-13T12:26:40.000Z');
  });

  it('compact drops undefined fields, keeps the order and leaves the input alone', () => {
    const input = { a: 1, b: undefined, c: null, d: 'x', e: undefined };
    const out = compact(input);
    expect(Object.keys(out)).toEqual(['a', 'c', 'd']);
    expect(JSON.stringify(out)).toBe('{"a":1,"c":null,"d":"x"}');
    expect(Object.keys(input)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

async function collectValues<T>(items: AsyncIterable<T>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of items) out.push('value' in (item as object) ? (item as { value: unknown }).value : item);
  return out;
}
