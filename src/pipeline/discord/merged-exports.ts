import { isoOfEpochMs } from '../../shared/iso-time.js';
import type { MessageOutcome } from '../../transform/chat-export/index.js';
import { compareSnowflakes, type DiscordFile } from './plan.js';

type Message = Extract<MessageOutcome, { kind: 'message' }>;

/** One export of a channel or thread: a file, or the parts of a `--partition` export read in turn. */
export interface ExportSource {
  /** Its messages are all at or after this time (UTC ISO; '' when not known): it is opened once the merge gets there. */
  from: string;
  /** When it was exported (ms; NaN when not known): of two copies of a message, the later export's is the newer. */
  exportedAt: number;
  read(): AsyncGenerator<MessageOutcome[]>;
}

/**
 * A channel's (or a reply thread's) files as exports, in the order given: the parts of one `--partition`
 * export (one name but for ` [part N]`, one date range) are one, read part after part.
 */
export function exportsOf(files: readonly DiscordFile[], read: (f: DiscordFile) => AsyncGenerator<MessageOutcome[]>): ExportSource[] {
  const groups = new Map<string, DiscordFile[]>();
  for (const f of files) {
    const key = JSON.stringify([f.file.replace(/ \[part \d+\]\.json$/, '.json'), f.dateRange?.after ?? null, f.dateRange?.before ?? null]);
    const group = groups.get(key);
    if (group) group.push(f);
    else groups.set(key, [f]);
  }
  return [...groups.values()].map((parts) => ({
    from: startOf(parts[0]!.dateRange?.after),
    exportedAt: latestTime(parts.map((f) => f.exportedAt)),
    read: async function* () {
      for (const f of parts) yield* read(f);
    },
  }));
}

/** The latest of some times, in ms; NaN when none is one. */
function latestTime(times: ReadonlyArray<string | undefined>): number {
  const ms = times.map((t) => (t === undefined ? NaN : Date.parse(t))).filter((t) => !Number.isNaN(t));
  return ms.length === 0 ? NaN : Math.max(...ms);
}

/** DiscordChatExporter's `--after` as UTC ISO (its messages come after it); '' when none. */
function startOf(after: unknown): string {
  const ms = typeof after === 'string' ? Date.parse(after) : NaN;
  return Number.isNaN(ms) ? '' : isoOfEpochMs(ms);
}

/**
 * Several exports of one channel or reply thread, merged by time (each is in time order, as
 * DiscordChatExporter writes it; equal times by id), records that are not messages at once. A message two
 * exports both hold (their ranges overlap) is one message: its newest copy (the latest edit, else the latest
 * export, else the one read last) is given out first, then each other copy, as it is when it reads the
 * same (a duplicate, counted so), else as a skipped record naming the copy imported.
 *
 * Memory: an export is opened only once the merge reaches the start of its range (`from`) and is let go at
 * its end, so one file's read-ahead is held per export whose range covers the point reached.
 */
export async function* mergeExports(sources: readonly ExportSource[], batchSize = 512): AsyncGenerator<MessageOutcome[]> {
  if (sources.length === 1) return yield* sources[0]!.read();
  const pending = sources.map((source, order) => ({ source, order })).sort((a, b) => (a.source.from < b.source.from ? -1 : a.source.from > b.source.from ? 1 : a.order - b.order));
  let open: OpenExport[] = [];
  try {
    let out: MessageOutcome[] = [];
    for (;;) {
      let next = await earliest(open);
      // An export whose range has begun by the next message's time may hold it, or an earlier one.
      while (pending.length > 0 && reached(next?.peeked, pending[0]!.source.from)) {
        const { source, order } = pending.shift()!;
        open.push(new OpenExport(source, order));
        next = await earliest(open);
      }
      open = open.filter((e) => !e.ended);
      if (next === undefined) break;
      out.push(...takeWithCopies(next, open));
      if (out.length >= batchSize) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  } finally {
    await Promise.all(open.map((e) => e.close()));
  }
}

/** Whether the merge has got to a time: nothing is left to read, or the next message is at or after it. */
const reached = (next: MessageOutcome | undefined, time: string): boolean => next === undefined || (next.kind === 'message' && next.message.facts.time >= time);

/** The export whose next record comes first: one that is not a message at once, else the earliest message. */
async function earliest(open: readonly OpenExport[]): Promise<OpenExport | undefined> {
  let best: OpenExport | undefined;
  for (const e of open) {
    const head = await e.head();
    if (head === undefined) continue;
    if (head.kind !== 'message') return e;
    if (best === undefined || comesBefore(head, best.peeked as Message)) best = e;
  }
  return best;
}

const comesBefore = (a: Message, b: Message): boolean => {
  const [ta, tb] = [a.message.facts.time, b.message.facts.time];
  return ta !== tb ? ta < tb : compareSnowflakes(a.message.id, b.message.id) < 0;
};

/** The next record, and the other exports' copies of it when it is a message: the newest copy first. */
function takeWithCopies(next: OpenExport, open: readonly OpenExport[]): MessageOutcome[] {
  const first = next.take();
  if (first.kind !== 'message') return [first];
  const copies = [{ outcome: first, from: next }];
  for (const e of open) {
    const head = e === next ? undefined : e.peeked;
    if (head?.kind === 'message' && head.message.id === first.message.id) copies.push({ outcome: e.take() as Message, from: e });
  }
  if (copies.length === 1) return [first];
  const newest = copies.reduce((a, b) => (isNewer(b.outcome, b.from, a.outcome, a.from) ? b : a));
  const content = contentOf(newest.outcome);
  const others = copies.filter((c) => c !== newest).map(({ outcome }) => (contentOf(outcome) === content ? outcome : superseded(outcome, newest.outcome)));
  return [newest.outcome, ...others];
}

/** Of two copies of a message: the later edit, else the later export, else the one read later. */
function isNewer(a: Message, ea: OpenExport, b: Message, eb: OpenExport): boolean {
  const [editedA, editedB] = [a.message.facts.edited?.time ?? '', b.message.facts.edited?.time ?? ''];
  if (editedA !== editedB) return editedA > editedB;
  const [atA, atB] = [ea.source.exportedAt, eb.source.exportedAt].map((ms) => (Number.isNaN(ms) ? -Infinity : ms)) as [number, number];
  return atA !== atB ? atA > atB : ea.order > eb.order;
}

/** What the import sends for a copy (all but where it was read). */
const contentOf = (m: Message): string => JSON.stringify({ ...m.message, position: undefined });

function superseded(old: Message, newest: Message): MessageOutcome {
  const { file, index } = newest.message.position;
  return {
    kind: 'skipped',
    position: old.message.position,
    channelId: old.message.channelId,
    because: `an older copy of message ${old.message.id} (edited or exported again since): the newest copy, record ${index} of ${file}, is imported in its place`,
  };
}

/** One export being read: its records one at a time, a batch ahead. */
class OpenExport {
  private readonly reader: AsyncGenerator<MessageOutcome[]>;
  private batch: MessageOutcome[] = [];
  private index = 0;
  ended = false;
  constructor(
    readonly source: ExportSource,
    readonly order: number,
  ) {
    this.reader = source.read();
  }

  /** The next record, not taken; undefined once the export is done. */
  async head(): Promise<MessageOutcome | undefined> {
    while (this.index >= this.batch.length && !this.ended) {
      const next = await this.reader.next();
      if (next.done) this.ended = true;
      else [this.batch, this.index] = [next.value, 0];
    }
    return this.peeked;
  }

  get peeked(): MessageOutcome | undefined {
    return this.batch[this.index];
  }

  take(): MessageOutcome {
    return this.batch[this.index++]!;
  }

  async close(): Promise<void> {
    await this.reader.return(undefined);
  }
}
