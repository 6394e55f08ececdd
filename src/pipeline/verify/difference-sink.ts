import { closeSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_SORT_BUDGET_BYTES, ExternalSort, JSON_CODEC, type SortCodec } from '../../shared/external-sort.js';
import { STAGE_ORDER } from '../../transform/index.js';
import type { StageName } from '../state/events.js';
import { emptyDifferenceCounts, type Difference, type DifferenceCounts } from './types.js';

/**
 * The packed sort key: a place (stage, file) times `indexSpan` plus the source index, exact in a float64 while
 * places stay under `maxPlaces` (2^21 places × 2^32 indexes = 2^53). Tests shrink them.
 */
export interface SortKeyLimits {
  indexSpan: number;
  maxPlaces: number;
}

const PACKED_KEY: SortKeyLimits = { indexSpan: 2 ** 32, maxPlaces: 2 ** 21 };

/** Where a difference sorts: stage, then positioned before not, then file (as text), then index; ties as added. */
interface Place {
  stage: number;
  positioned: boolean;
  file: string;
}

/**
 * Every difference of a verification, counted and sorted into source order (stage, file, record index; those
 * without a source record, extras, after their stage's others in the order found) in bounded memory: millions
 * of differences (a platform that lost a million messages) go through an external sort (external-sort.ts),
 * spilled to a temp folder past its budget, instead of an array held to the end. Counts per stage and kind
 * are kept as they come. Before, every difference stayed in the heap until the end, and 3 million of them
 * ran verify out of memory (exit 134, no report, no files).
 */
export class DifferenceSink {
  private sort: ExternalSort<Difference>;
  /**
   * Past the packed key's limits (more than 2^21 files with differences, an index past 2^32) the key is the
   * place alone, and each place's differences are sorted by index as they are read back: one more pass,
   * exact whatever the counts. Before, such a verification stopped with exit 1.
   */
  private byPlaceOnly = false;
  private readonly places = new Map<string, number>();
  private readonly placeList: Place[] = [];
  private readonly counts = new Map<StageName, DifferenceCounts>();
  private added = 0;

  constructor(
    private readonly budgetBytes = DEFAULT_SORT_BUDGET_BYTES,
    private readonly baseDir = tmpdir(),
    private readonly limits: SortKeyLimits = PACKED_KEY,
  ) {
    this.sort = this.newSort();
  }

  get total(): number {
    return this.added;
  }

  /** Whether any difference went to disk (for tests). */
  get spilled(): boolean {
    return this.sort.spilled;
  }

  /** Sees every difference as it is added (deleted-since-import.ts notes the missing messages). */
  onAdd: ((difference: Difference) => void) | undefined;

  add(difference: Difference): void {
    this.onAdd?.(difference);
    const counts = this.counts.get(difference.stage) ?? emptyDifferenceCounts();
    this.counts.set(difference.stage, counts);
    counts[difference.kind]++;
    this.added++;
    const index = indexOf(difference);
    if (!Number.isSafeInteger(index) || index < 0) throw new Error(`a difference's source index ${index} is not a whole number`);
    const place = this.placeOf(difference);
    if (!this.byPlaceOnly && (place >= this.limits.maxPlaces || index >= this.limits.indexSpan)) this.keyByPlaceOnly();
    this.sort.add(this.byPlaceOnly ? place : place * this.limits.indexSpan + index, difference);
  }

  addAll(differences: Iterable<Difference>): void {
    for (const d of differences) this.add(d);
  }

  /** This stage's differences by kind (all zero when it had none). */
  countsOf(stage: StageName): DifferenceCounts {
    return { ...(this.counts.get(stage) ?? emptyDifferenceCounts()) };
  }

  /** Every stage's differences by kind. */
  totalCounts(): DifferenceCounts {
    const out = emptyDifferenceCounts();
    for (const counts of this.counts.values()) for (const kind of Object.keys(out) as Array<keyof DifferenceCounts>) out[kind] += counts[kind];
    return out;
  }

  /**
   * Every difference added, in source order. Read once; close() after. The sort keys number the places in the
   * order they were first seen: when that is not their source order (a later file's difference found first),
   * the sorted differences are sorted once more by each place's rank.
   */
  *sorted(): Generator<Difference> {
    const rank = this.placeRanks();
    const inOrder = rank.every((r, id) => r === id);
    if (inOrder && !this.byPlaceOnly) {
      yield* this.sort.sorted();
      return;
    }
    const again = inOrder ? undefined : this.newSort();
    try {
      let read: Iterable<Difference> = this.sort.sorted();
      if (again) {
        for (const d of read) again.add(this.byPlaceOnly ? rank[this.placeOf(d)]! : rank[this.placeOf(d)]! * this.limits.indexSpan + indexOf(d), d);
        this.sort.close();
        read = again.sorted();
      }
      yield* this.byPlaceOnly ? this.byIndexInEachPlace(read) : read;
    } finally {
      again?.close();
    }
  }

  /** Removes the spilled runs (safe to call more than once). */
  close(): void {
    this.sort.close();
  }

  private newSort(): ExternalSort<Difference> {
    return new ExternalSort<Difference>(this.budgetBytes, this.baseDir, JSON_CODEC as SortCodec<Difference>);
  }

  /** The differences held so far, in key order, keyed again by their place alone (ties stay as added). */
  private keyByPlaceOnly(): void {
    const byPlace = this.newSort();
    for (const d of this.sort.sorted()) byPlace.add(this.placeOf(d), d);
    this.sort.close();
    this.sort = byPlace;
    this.byPlaceOnly = true;
  }

  /** Differences grouped by place, each group sorted by source index (equal indexes as they come). */
  private *byIndexInEachPlace(differences: Iterable<Difference>): Generator<Difference> {
    let place = -1;
    let group: ExternalSort<Difference> | undefined;
    try {
      for (const d of differences) {
        const at = this.placeOf(d);
        if (at !== place) {
          if (group) yield* group.sorted();
          group?.close();
          group = this.newSort();
          place = at;
        }
        group!.add(indexOf(d), d);
      }
      if (group) yield* group.sorted();
    } finally {
      group?.close();
    }
  }

  private placeOf(d: Difference): number {
    const stage = STAGE_ORDER.indexOf(d.stage);
    const file = d.position?.file ?? '';
    const name = `${stage}\u0000${d.position ? 1 : 0}\u0000${file}`;
    let id = this.places.get(name);
    if (id === undefined) {
      id = this.placeList.length;
      this.places.set(name, id);
      this.placeList.push({ stage, positioned: d.position !== undefined, file });
    }
    return id;
  }

  /** Each place's rank in source order (run-verify.ts used to sort by the same rule: bySourceOrder). */
  private placeRanks(): number[] {
    const ids = this.placeList.map((_, id) => id);
    ids.sort((a, b) => comparePlaces(this.placeList[a]!, this.placeList[b]!));
    const rank: number[] = new Array<number>(ids.length);
    ids.forEach((id, r) => (rank[id] = r));
    return rank;
  }
}

const indexOf = (d: Difference): number => d.position?.index ?? 0;

function comparePlaces(a: Place, b: Place): number {
  if (a.stage !== b.stage) return a.stage - b.stage;
  if (a.positioned !== b.positioned) return a.positioned ? -1 : 1;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/** The first `count` of `items`, and the rest passed on as they are read (an iterable read once). */
export function* takeFirst<T>(items: Iterable<T>, count: number, into: T[]): Generator<T> {
  for (const item of items) {
    if (into.length < count) into.push(item);
    yield item;
  }
}

const READ_BYTES = 1 << 20;

/** The differences of an NDJSON file (verify-differences.ndjson), read a megabyte at a time. */
export function* readDifferencesFile(path: string): Generator<Difference> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    // A character cut at a megabyte's end is completed by the next read.
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (let got = readSync(fd, buffer, 0, READ_BYTES, null); got > 0; got = readSync(fd, buffer, 0, READ_BYTES, null)) {
      const text = rest + decoder.write(buffer.subarray(0, got));
      const lines = text.split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line !== '') yield JSON.parse(line) as Difference;
    }
    rest += decoder.end();
    if (rest !== '') yield JSON.parse(rest) as Difference;
  } finally {
    closeSync(fd);
  }
}
