import { mkdtemp, writeFile, readFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal, readJournal } from '../../src/pipeline/state/journal.js';

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
});
