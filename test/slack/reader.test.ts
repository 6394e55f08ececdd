import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { createZipWriter } from '../../fixtures/slack/generator/writers.js';
import {
  listConversationFolders,
  listUnrecognizedFiles,
  openSlackExport,
  readConversationDays,
  readSlackConversations,
  readSlackUsers,
  readWholeFile,
  type SlackExport,
} from '../../src/sources/slack/index.js';
import { buildRawZip, minimalExportEntries, writeRawZip, type RawZipEntry } from './helpers/zip-writer.js';
import { useTempDir } from './helpers/temp.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('reading a generated export as a folder and as a zip', () => {
  let dir: string;
  let folder: SlackExport;
  let zip: SlackExport;

  beforeAll(async () => {
    dir = await useTempDir();
    await generateSlackExport({ out: join(dir, 'export'), seed: 3, messages: 400 });
    await generateSlackExport({ out: join(dir, 'export.zip'), seed: 3, messages: 400 });
    folder = await openSlackExport(join(dir, 'export'));
    zip = await openSlackExport(join(dir, 'export.zip'));
    return async () => {
      await folder.close();
      await zip.close();
    };
  });

  it('lists the same files both ways, without __MACOSX entries', () => {
    expect(folder.kind).toBe('folder');
    expect(zip.kind).toBe('zip');
    expect(zip.files).toEqual(folder.files);
    expect(zip.files.some((f) => f.includes('__MACOSX') || f.includes('/._'))).toBe(false);
    expect(zip.files).toContain('users.json');
    expect(zip.files).toContain('mpims.json');
  });

  it('reads identical bytes from both', async () => {
    const day = folder.files.find((f) => f.startsWith('general/'))!;
    expect(await readWholeFile(zip, day, 1e9)).toBe(await readWholeFile(folder, day, 1e9));
  });

  it('streams users and conversations with their positions', async () => {
    const users = await collect(readSlackUsers(zip));
    expect(users[0]).toMatchObject({ file: 'users.json', index: 0, value: { id: 'U0001' } });
    const conversations = await collect(readSlackConversations(zip));
    expect(new Set(conversations.map((c) => c.kind))).toEqual(new Set(['channel', 'group', 'dm', 'mpim']));
    expect(conversations.find((c) => c.kind === 'dm')).toMatchObject({ file: 'dms.json', index: 0 });
  });

  it('lists day files per conversation in date order and reads them one at a time', async () => {
    const folders = listConversationFolders(zip);
    const general = folders.get('general')!;
    expect(general).toEqual([...general].sort());
    expect(folders.has('D0001')).toBe(true); // DMs by id
    expect(folders.has('café-☕')).toBe(true); // a UTF-8 name
    const days = await collect(readConversationDays(zip, folders.get('empty-days')!));
    expect(days[0]).toEqual({ file: days[0]!.file, date: days[0]!.date, messages: [], invalidBytes: 0, surrogateEscapes: false });
    expect(listUnrecognizedFiles(zip)).toEqual([]);
  });
});

describe('zip entry names', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await useTempDir();
  });

  const open = async (name: string, entries: Parameters<typeof buildRawZip>[0], limits = {}) => {
    const path = join(dir, name);
    await writeFile(path, buildRawZip(entries));
    return openSlackExport(path, { limits });
  };

  it('decodes UTF-8 names that are not flagged as UTF-8 (macOS Archive Utility)', async () => {
    const exp = await open('unflagged.zip', minimalExportEntries([{ name: Buffer.from('café/2020-01-01.json', 'utf8'), data: '[]', utf8Flag: false }]));
    expect(exp.files).toContain('café/2020-01-01.json');
    await exp.close();
  });

  it('decodes names that are not UTF-8 as CP437 (old Windows zippers)', async () => {
    // 0x82 is "é" in CP437 and is not valid UTF-8 on its own.
    const name = Buffer.concat([Buffer.from('caf'), Buffer.from([0x82]), Buffer.from('/2020-01-01.json')]);
    const exp = await open('cp437.zip', minimalExportEntries([{ name, data: '[]', utf8Flag: false }]));
    expect(exp.files).toContain('café/2020-01-01.json');
    await exp.close();
  });

  it('ignores __MACOSX, ._ and .DS_Store entries and finds the root inside a wrapping folder', async () => {
    const wrapped = minimalExportEntries([{ name: 'general/2020-01-01.json', data: '[]' }]).map((e) => ({ ...e, name: `My Export/${String(e.name)}` }));
    const exp = await open('wrapped.zip', [
      ...wrapped,
      { name: '__MACOSX/My Export/._users.json', data: 'junk' },
      { name: 'My Export/general/._2020-01-01.json', data: 'junk' },
      { name: 'My Export/.DS_Store', data: 'junk' },
    ]);
    expect(exp.files).toEqual(['channels.json', 'general/2020-01-01.json', 'users.json']);
    expect((await collect(readSlackUsers(exp)))[0]!.value).toMatchObject({ id: 'U1' });
    await exp.close();
  });

  it.each([
    ['../evil.json', "climbs out of the export with '..'"],
    ['general/../../evil.json', "climbs out of the export with '..'"],
    ['/etc/passwd', 'is an absolute path'],
    ['C:\\Windows\\evil.json', 'starts with a drive letter'],
  ])('refuses an archive with the entry %s', async (name, why) => {
    const error = await open(`escape-${why.length}-${name.length}.zip`, minimalExportEntries([{ name, data: '[]' }])).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SLACK_ZIP_PATH_ESCAPE', details: { entry: name.replace(/\\/g, '/') } });
    expect(String((error as Error).message)).toContain(why);
  });
});

describe('zip bomb guards', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await useTempDir();
  });
  const write = (name: string, entries: RawZipEntry[]) => writeRawZip(dir, name, entries);
  const zeros = Buffer.alloc(4 * 1024 * 1024);

  it('refuses more entries than the limit before reading any', async () => {
    const path = await write('many.zip', minimalExportEntries(Array.from({ length: 10 }, (_, i) => ({ name: `general/2020-01-${String(i + 10)}.json`, data: '[]' }))));
    await expect(openSlackExport(path, { limits: { maxEntries: 5 } })).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB', message: expect.stringContaining('12 entries, more than the limit of 5') });
  });

  it('refuses an entry whose declared size is over the per-entry limit', async () => {
    const path = await write('big.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: zeros, compress: false }]));
    await expect(openSlackExport(path, { limits: { maxEntryBytes: 1024 * 1024 } })).rejects.toMatchObject({
      code: 'SLACK_ZIP_BOMB',
      message: expect.stringContaining('entry "general/2020-01-01.json" declares 4194304 bytes'),
    });
  });

  it('refuses an entry whose compression ratio is absurd', async () => {
    const path = await write('ratio.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: zeros }]));
    await expect(openSlackExport(path)).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB', message: expect.stringContaining('compression ratio') });
  });

  it('refuses when the declared sizes add up past the total limit', async () => {
    const path = await write('total.zip', minimalExportEntries([1, 2, 3].map((d) => ({ name: `general/2020-01-0${d}.json`, data: Buffer.alloc(600_000, 32), compress: false }))));
    await expect(openSlackExport(path, { limits: { maxTotalBytes: 1_000_000 } })).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB', message: expect.stringContaining('in total') });
  });

  it('stops an entry that inflates to more than it declared', async () => {
    const path = await write('liar.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: Buffer.alloc(200_000, 32), declaredSize: 10 }]));
    const exp = await openSlackExport(path);
    await expect(readWholeFile(exp, 'general/2020-01-01.json', 1e9)).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB', message: expect.stringContaining('general/2020-01-01.json') });
    await exp.close();
  });

  it('refuses a day file larger than the whole-file limit', async () => {
    const path = await write('wholefile.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: `[${'"x",'.repeat(10_000)}"x"]` }]));
    const exp = await openSlackExport(path, { limits: { maxWholeFileBytes: 1000 } });
    await expect(collect(readConversationDays(exp, ['general/2020-01-01.json'], { maxWholeFileBytes: 1000 }))).rejects.toMatchObject({ code: 'SLACK_ZIP_BOMB' });
    await exp.close();
  });
});

describe('damaged entries', () => {
  const day = '[{"type":"message","ts":"1.000001","user":"U1","text":"hello dc"}]';
  const damaged = day.replace('hello', 'jello');

  it.each([
    ['stored', false],
    ['deflated', true],
  ])('refuses a %s day file whose bytes do not match its CRC-32, naming the entry', async (_kind, compress) => {
    const dir = await useTempDir();
    const path = await writeRawZip(dir, 'damaged.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: damaged, crcOf: day, compress }]));
    const exp = await openSlackExport(path);
    await expect(readWholeFile(exp, 'general/2020-01-01.json', 1e6)).rejects.toMatchObject({
      code: 'SLACK_ZIP_UNREADABLE',
      message: expect.stringMatching(/damaged\.zip!general\/2020-01-01\.json: the entry is damaged \(its CRC-32 is [0-9a-f]{8}, the zip declares [0-9a-f]{8}\)/),
    });
    await exp.close();
  });

  it('refuses a streamed users.json whose bytes do not match its CRC-32', async () => {
    const dir = await useTempDir();
    const users = JSON.stringify([{ id: 'U1', team_id: 'T1', name: 'ana' }]);
    const entries = minimalExportEntries().map((e) => (e.name === 'users.json' ? { ...e, data: users.replace('ana', 'anb'), crcOf: users } : e));
    const exp = await openSlackExport(await writeRawZip(dir, 'users.zip', entries));
    await expect(collect(readSlackUsers(exp))).rejects.toMatchObject({ code: 'SLACK_ZIP_UNREADABLE', message: expect.stringContaining('users.json: the entry is damaged') });
    await exp.close();
  });

  it('reads entries whose CRC-32 matches', async () => {
    const dir = await useTempDir();
    const exp = await openSlackExport(await writeRawZip(dir, 'sound.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: day }])));
    expect(await readWholeFile(exp, 'general/2020-01-01.json', 1e6)).toContain('hello dc');
    expect(await collect(readSlackUsers(exp))).toHaveLength(1);
    await exp.close();
  });
});

describe('zip64 archives', () => {
  it('reads an export whose zip uses zip64 records', async () => {
    const dir = await useTempDir();
    const path = join(dir, 'zip64.zip');
    const writer = createZipWriter(path, { forceZip64: true });
    await writer.write('users.json', '[{"id":"U1","name":"ana"}]');
    await writer.write('channels.json', '[]');
    await writer.write('general/2020-01-01.json', '[{"type":"message","ts":"1.000001","text":"hi"}]');
    await writer.close();
    const exp = await openSlackExport(path);
    expect(exp.files).toEqual(['channels.json', 'general/2020-01-01.json', 'users.json']);
    expect(await readWholeFile(exp, 'general/2020-01-01.json', 1e6)).toContain('"hi"');
    await exp.close();
  });
});

describe('what is not a readable export', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await useTempDir();
  });

  it('names a missing path', async () => {
    await expect(openSlackExport(join(dir, 'nope.zip'))).rejects.toMatchObject({ code: 'INPUT_MISSING', message: expect.stringContaining('nope.zip') });
  });

  it('names a file that is not a zip', async () => {
    await writeFile(join(dir, 'text.zip'), 'hello');
    await expect(openSlackExport(join(dir, 'text.zip'))).rejects.toMatchObject({ code: 'SLACK_ZIP_UNREADABLE' });
  });

  it('names a folder that holds no export', async () => {
    await mkdir(join(dir, 'empty'));
    await writeFile(join(dir, 'empty', 'notes.txt'), 'hi');
    await expect(openSlackExport(join(dir, 'empty'))).rejects.toMatchObject({ code: 'SLACK_EXPORT_NOT_FOUND' });
  });

  it('reports a broken day file and goes on with the next', async () => {
    const root = join(dir, 'broken');
    await mkdir(join(root, 'general'), { recursive: true });
    await writeFile(join(root, 'users.json'), '[]');
    await writeFile(join(root, 'channels.json'), '[]');
    await writeFile(join(root, 'general', '2020-01-01.json'), '[{"ts": ');
    await writeFile(join(root, 'general', '2020-01-02.json'), '{"not": "an array"}');
    await writeFile(join(root, 'general', '2020-01-03.json'), '[{"type":"message","ts":"1.0"}]');
    const exp = await openSlackExport(root);
    const days = await collect(readConversationDays(exp, listConversationFolders(exp).get('general')!));
    expect(days.map((d) => ('problem' in d ? d.problem.slice(0, 17) : d.messages.length))).toEqual(['not valid JSON (U', 'expected a JSON array of messages, found object'.slice(0, 17), 1]);
  });

  it('names the file when users.json is not a JSON array', async () => {
    const root = join(dir, 'badusers');
    await mkdir(root);
    await writeFile(join(root, 'users.json'), '[{"id": "U1"},');
    const exp = await openSlackExport(root);
    await expect(collect(readSlackUsers(exp))).rejects.toMatchObject({ code: 'SLACK_JSON_INVALID', message: expect.stringContaining('users.json') });
  });
});
