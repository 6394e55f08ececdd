import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { StageName } from '../state/events.js';

export interface RejectExample {
  file: string;
  line?: number;
  index: number;
  /** What was found there (the reason's `found`). */
  found: string;
  message: string;
}

/** Rejects that share a stage, a kind, a field and what was expected there. */
export interface RejectGroup {
  stage: StageName;
  kind: 'invalid' | 'refused';
  field: string;
  expected: string;
  count: number;
  examples: RejectExample[];
}

export interface RejectGroups {
  /** Records in the file (a record with several reasons counts once here, and in each of its groups). */
  records: number;
  /** The largest groups, most records first. */
  groups: RejectGroup[];
  /** Groups beyond those listed, and the records they hold. */
  more: { groups: number; count: number };
}

interface ReasonLike {
  field?: unknown;
  expected?: unknown;
  found?: unknown;
  message?: unknown;
}

/** Groups rejects.ndjson by reason, reading it once; memory is bounded by the number of distinct reasons. */
export async function groupRejects(file: string, top = 20, examples = 5): Promise<RejectGroups> {
  const groups = new Map<string, RejectGroup>();
  let records = 0;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      if (text.trim() === '') continue;
      records++;
      const line = JSON.parse(text) as { stage: StageName; kind: RejectGroup['kind']; file: string; line?: number; index: number; reasons?: ReasonLike[] };
      for (const reason of line.reasons ?? []) {
        const field = String(reason.field ?? '');
        const expected = String(reason.expected ?? '');
        const key = JSON.stringify([line.stage, line.kind, field, expected]);
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { stage: line.stage, kind: line.kind, field, expected, count: 0, examples: [] }));
        group.count++;
        if (group.examples.length < examples)
          group.examples.push({ file: line.file, index: line.index, ...(line.line !== undefined ? { line: line.line } : {}), found: String(reason.found ?? ''), message: String(reason.message ?? '') });
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: 0, groups: [], more: { groups: 0, count: 0 } };
    throw error;
  }
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count);
  const rest = sorted.slice(top);
  return { records, groups: sorted.slice(0, top), more: { groups: rest.length, count: rest.reduce((n, g) => n + g.count, 0) } };
}
