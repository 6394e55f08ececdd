import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { openSlackExport } from '../../src/sources/slack/index.js';
import { mapSlackExport } from './helpers/map-export.js';
import { useTempDir } from './helpers/temp.js';

const SAMPLE = join(import.meta.dirname, '..', '..', 'fixtures', 'slack', 'sample');

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else out.push(relative(root, path));
  }
  return out.sort();
}

describe('the committed sample export (fixtures/slack/sample)', () => {
  it('is exactly what `generate.ts --seed 1 --messages 300 --long-every 0` writes', async () => {
    const fresh = join(await useTempDir(), 'sample');
    await generateSlackExport({ out: fresh, seed: 1, messages: 300, longEvery: 0 });
    const files = await listFiles(SAMPLE);
    expect(await listFiles(fresh)).toEqual(files);
    for (const file of files) expect(await readFile(join(fresh, file), 'utf8'), file).toBe(await readFile(join(SAMPLE, file), 'utf8'));
  });

  it('maps completely: 300 messages imported, none skipped or rejected', async () => {
    const exp = await openSlackExport(SAMPLE);
    const mapped = await mapSlackExport(exp);
    await exp.close();
    expect(mapped.messages).toHaveLength(300);
    expect(mapped.messages.every((o) => o.outcome === 'items')).toBe(true);
    expect(mapped.directory.rejected).toEqual([]);
    expect(mapped.dayProblems).toEqual([]);
    expect(mapped.channels.map((c) => c.item.type).sort()).toEqual(['DIRECT', 'DIRECT', 'DIRECT', 'PRIVATE', 'PRIVATE', 'PRIVATE', 'PUBLIC', 'PUBLIC', 'PUBLIC', 'PUBLIC', 'PUBLIC']);
  });
});
