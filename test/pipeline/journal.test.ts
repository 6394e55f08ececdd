import { mkdtemp, writeFile, readFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal, readJournal, readJournalEvents } from '../../src/pipeline/state/journal.js';

describe('journal', () => {
  it('reads back what was appended, in order', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    const j = await openJournal<{ n: number }>(path, 0);
    for (let n = 0; n < 5; n++) await j.append({ n });
    await j.close();
    expect((await readJournal<{ n: number }>(path)).events.map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops a torn last line left by a crash and cuts it off before appending again', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    await writeFile(path, '{"n":0}\n{"n":1}\n{"n":2');
    const { events, validBytes } = await readJournal<{ n: number }>(path);
    expect(events).toEqual([{ n: 0 }, { n: 1 }]);
    const j = await openJournal<{ n: number }>(path, validBytes);
    await j.append({ n: 3 });
    await j.close();
    expect(await readFile(path, 'utf8')).toBe('{"n":0}\n{"n":1}\n{"n":3}\n');
  });

  it('has a line in the file as soon as its append resolves, before close', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    const j = await openJournal<{ n: number }>(path, 0);
    await j.append({ n: 0 });
    await j.append({ n: 1 });
    expect(await readFile(path, 'utf8')).toBe('{"n":0}\n{"n":1}\n');
    await j.close();
  });

  it('rejects an append whose write fails, and every append after it (a full disk: /dev/full)', async () => {
    const j = await openJournal<{ n: number }>('/dev/full', 0);
    await expect(j.append({ n: 0 })).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(j.append({ n: 1 })).rejects.toMatchObject({ code: 'ENOSPC' });
    await j.close();
  });

  it('refuses a journal damaged in the middle, naming the line', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    await writeFile(path, '{"n":0}\n{"n":\n');
    await appendFile(path, '{"n":2}\n');
    await expect(readJournal(path)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { line: 2 } });
  });

  it('treats a missing journal as empty', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'none.ndjson');
    expect(await readJournal(path)).toEqual({ events: [], validBytes: 0 });
  });

  it('reads a journal of many 1 MiB pieces line by line: lines and multi-byte text across the cuts, a torn or damaged line at the end', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'journal-'));
    const path = join(dir, 'j.ndjson');
    // About 3.5 MiB of lines of uneven length, with 2- and 4-byte characters, so cuts fall inside lines and characters.
    const lines: string[] = [];
    for (let n = 0, bytes = 0; bytes < 3.5 * 2 ** 20; n++) {
      lines.push(`${JSON.stringify({ n, key: `C${n}/é🎉`.repeat(1 + (n % 7)) })}\n`);
      bytes += Buffer.byteLength(lines[n]!);
    }
    const whole = lines.join('');
    await writeFile(path, whole);
    const seen: number[] = [];
    const { validBytes } = await readJournalEvents<{ n: number; key: string }>(path, (e) => {
      expect(e.key).toBe(`C${e.n}/é🎉`.repeat(1 + (e.n % 7)));
      seen.push(e.n);
    });
    expect(seen).toEqual(lines.map((_, n) => n));
    expect(validBytes).toBe(Buffer.byteLength(whole));

    await appendFile(path, '{"n":-1,"key":"torn');
    expect((await readJournalEvents(path, () => undefined)).validBytes).toBe(Buffer.byteLength(whole));
    await writeFile(path, `${whole}{"n":\n`);
    expect((await readJournalEvents(path, () => undefined)).validBytes).toBe(Buffer.byteLength(whole));
    await appendFile(path, '{"n":0}\n');
    await expect(readJournalEvents(path, () => undefined)).rejects.toMatchObject({ code: 'STATE_CORRUPT', details: { line: lines.length + 1 } });
  });

  it('keeps only the events asked for', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    await writeFile(path, '{"n":0}\n{"n":1}\n{"n":2}\n{"n":3}\n');
    expect((await readJournal<{ n: number }>(path, (e) => e.n % 2 === 1)).events).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('parses only the lines holding a text when asked (`only`), the others passed over, not visited', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'journal-')), 'j.ndjson');
    const text = '{"t":"a","n":0}\n{"t":"b","n":1}\n{"t":"a","n":2}\n';
    await writeFile(path, text);
    const seen: unknown[] = [];
    const { validBytes } = await readJournalEvents(path, (e) => seen.push(e), { containing: '"t":"a"' });
    expect(seen).toEqual([{ t: 'a', n: 0 }, { t: 'a', n: 2 }]);
    expect(validBytes).toBe(Buffer.byteLength(text));
  });
});
