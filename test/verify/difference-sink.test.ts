import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DifferenceSink, readDifferencesFile } from '../../src/pipeline/verify/difference-sink.js';
import { ndjsonPieces } from '../../src/pipeline/verify/run-verify.js';
import { STAGE_ORDER } from '../../src/transform/index.js';
import type { Difference, DifferenceKind } from '../../src/pipeline/verify/types.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'difference-sink-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The order verification sorted its differences in before they were streamed (run-verify.ts, up to session 27). */
function bySourceOrder(a: Difference, b: Difference): number {
  const stage = STAGE_ORDER.indexOf(a.stage) - STAGE_ORDER.indexOf(b.stage);
  if (stage !== 0) return stage;
  if (!a.position || !b.position) return a.position ? -1 : b.position ? 1 : 0;
  return a.position.file < b.position.file ? -1 : a.position.file > b.position.file ? 1 : a.position.index - b.position.index;
}

const KINDS: DifferenceKind[] = ['missing', 'extra', 'changed', 'out-of-order', 'misplaced'];


/** Differences as the stages find them: later files first, stages out of order, extras (no position) among them, ties. */
function mixed(count: number): Difference[] {
  const out: Difference[] = [];
  for (let i = 0; i < count; i++) {
    const stage = (['messages', 'users', 'members', 'messages', 'channels'] as const)[i % 5]!;
    const kind = KINDS[(i * 3 + (i >> 2)) % 5]!;
    const positioned = kind !== 'extra';
    const file = ['z-day.csv', 'a-day.csv', 'm é.csv'][i % 3]!;
    // Few indexes, so many ties: equal places keep the order they were found in.
    const position = positioned ? { file, line: (i % 11) + 2, index: i % 11 } : undefined;
    out.push({ kind, stage, ...(positioned ? { sourceKey: `k${i}`, position } : { platformId: String(1000 + i) }), message: `difference ${i} 🎉` });
  }
  return out;
}

function countsOf(differences: readonly Difference[]): Record<DifferenceKind, number> {
  const counts = { missing: 0, extra: 0, misplaced: 0, 'out-of-order': 0, changed: 0 };
  for (const d of differences) counts[d.kind]++;
  return counts;
}

describe('the difference sink', () => {
  it('gives every difference in the old sort order and counts them, in memory and spilled to disk alike', () => {
    const differences = mixed(3000);
    const expected = [...differences].sort(bySourceOrder);
    for (const budget of [undefined, 2000]) {
      const sink = new DifferenceSink(budget, dir);
      sink.addAll(differences);
      expect(sink.spilled).toBe(budget !== undefined);
      expect(sink.total).toBe(3000);
      for (const stage of STAGE_ORDER) expect(sink.countsOf(stage)).toEqual(countsOf(differences.filter((d) => d.stage === stage)));
      expect(sink.totalCounts()).toEqual(countsOf(differences));
      expect([...sink.sorted()]).toEqual(expected);
      sink.close();
    }
  });

  it('holds at most its budget in memory: the rest is in run files until read, and close removes them', async () => {
    const sink = new DifferenceSink(4000, dir);
    for (let i = 0; i < 500; i++) sink.add({ kind: 'missing', stage: 'messages', sourceKey: `m${i}`, position: { file: 'messages.csv', line: i + 2, index: 500 - i }, message: `message m${i} is not in channel c1` });
    expect(sink.spilled).toBe(true);
    expect((await readdir(dir)).length).toBe(1);
    const keys = [...sink.sorted()].map((d) => d.sourceKey);
    expect(keys).toEqual(Array.from({ length: 500 }, (_, i) => `m${499 - i}`));
    sink.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it('sorts exactly past its packed key: more places than the key holds, an index past its span', () => {
    // Limits shrunk (as 2^21 files or 2^32 records would run out): after 600 differences in 2 files of
    // indexes below 8, more files and larger indexes; 3 places run out at once.
    const wider = (i: number) => (i < 600 ? { file: `f${i % 2}.csv`, index: i % 8 } : { file: `f${i % 7}.csv`, index: (i * 37) % 20 });
    const differences = mixed(1000).map((d, i) => (d.position ? { ...d, position: { ...d.position, ...wider(i) } } : d));
    const expected = [...differences].sort(bySourceOrder);
    for (const [budget, maxPlaces] of [[undefined, 3], [2000, 3], [2000, 16]] as const) {
      const sink = new DifferenceSink(budget, dir, { maxPlaces, indexSpan: 8 });
      sink.addAll(differences);
      expect([...sink.sorted()]).toEqual(expected);
      sink.close();
    }
  });

  it('reads back a differences file whole, a character cut at a read boundary too', async () => {
    // The first line's emoji starts 2 bytes before the first megabyte read ends.
    const head = JSON.stringify({ kind: 'missing', stage: 'messages', message: '' });
    const long: Difference = { kind: 'missing', stage: 'messages', message: `${'a'.repeat(2 ** 20 - 2 - (head.length - 2))}🎉 and after` };
    const differences = [long, ...mixed(5000)];
    const file = join(dir, 'verify-differences.ndjson');
    await writeFile(file, [...ndjsonPieces(differences)].join(''));
    expect([...readDifferencesFile(file)]).toEqual(differences);
  });
});
