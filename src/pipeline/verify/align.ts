/**
 * Aligns two sequences (the source's messages of a channel and the platform's) and returns the edits
 * that turn one into the other: `del i` (a[i] is not in b), `ins j` (b[j] is not in a), in walking order.
 * Pure and bounded: the common prefix and suffix are cut first (the whole sequence when nothing
 * differs), then Myers' O((N+M)·D) diff finds a shortest script while D stays small; past the work
 * budget a greedy merge with a small look-ahead takes over, which is linear and still exact for the
 * usual few scattered differences.
 */
export type EditOp = { op: 'del'; i: number } | { op: 'ins'; j: number };

/**
 * An edit script held compact, one float64 an edit (`del i` as 2i, `ins j` as 2j + 1), read as EditOps made
 * as they are walked: a channel of ten million missing messages held two arrays of ten million objects
 * (about 80 bytes an edit) while it was compared.
 */
export class EditScript implements Iterable<EditOp> {
  private codes = new Float64Array(16);
  length = 0;

  constructor(private readonly shift = 0) {}

  del(i: number): void {
    this.push(2 * (i + this.shift));
  }

  ins(j: number): void {
    this.push(2 * (j + this.shift) + 1);
  }

  *[Symbol.iterator](): Iterator<EditOp> {
    for (let k = 0; k < this.length; k++) {
      const code = this.codes[k]!;
      yield code % 2 === 0 ? { op: 'del', i: code / 2 } : { op: 'ins', j: (code - 1) / 2 };
    }
  }

  private push(code: number): void {
    if (this.length === this.codes.length) {
      const grown = new Float64Array(this.length * 2);
      grown.set(this.codes);
      this.codes = grown;
    }
    this.codes[this.length++] = code;
  }
}

export interface Alignment {
  ops: EditScript;
  /** false when the work budget ran out and the greedy merge aligned the rest (the script may be longer than shortest). */
  shortest: boolean;
}

export interface AlignOptions {
  /** Upper bound of (N+M)·D comparisons Myers may spend. Default 50 million. */
  maxWork?: number;
  /** Largest D tried (the trace keeps D copies of the diagonals). Default 1000. */
  maxEdits?: number;
  /** How far the greedy merge looks ahead on either side. Default 64. */
  lookAhead?: number;
}

export function align(n: number, m: number, eq: (i: number, j: number) => boolean, options: AlignOptions = {}): Alignment {
  let start = 0;
  while (start < n && start < m && eq(start, start)) start++;
  let end = 0;
  while (end < n - start && end < m - start && eq(n - 1 - end, m - 1 - end)) end++;
  const N = n - start - end;
  const M = m - start - end;
  const shifted = (i: number, j: number) => eq(start + i, start + j);
  const maxEdits = Math.min(options.maxEdits ?? 1000, Math.max(1, Math.floor((options.maxWork ?? 50_000_000) / Math.max(1, N + M))), N + M);
  const found = myers(N, M, shifted, maxEdits, start);
  return { ops: found ?? greedyMerge(N, M, shifted, options.lookAhead ?? 64, start), shortest: found !== undefined };
}

function myers(N: number, M: number, eq: (i: number, j: number) => boolean, maxD: number, shift: number): EditScript | undefined {
  const off = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < N && y < M && eq(x, y)) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= N && y >= M) return backtrack(trace, N, M, d, off, shift);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], N: number, M: number, D: number, off: number, shift: number): EditScript {
  const ops: EditOp[] = [];
  let x = N;
  let y = M;
  for (let d = D; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[off + prevK]!;
    const prevY = prevX - prevK;
    // (x, y) ends a snake of matches that starts right after this edit.
    ops.push(down ? { op: 'ins', j: prevY } : { op: 'del', i: prevX });
    x = prevX;
    y = prevY;
  }
  // At most maxEdits (1000) objects: the trace costs more.
  const script = new EditScript(shift);
  for (const op of ops.reverse()) {
    if (op.op === 'del') script.del(op.i);
    else script.ins(op.j);
  }
  return script;
}

function greedyMerge(N: number, M: number, eq: (i: number, j: number) => boolean, window: number, shift: number): EditScript {
  const ops = new EditScript(shift);
  let i = 0;
  let j = 0;
  while (i < N && j < M) {
    if (eq(i, j)) {
      i++;
      j++;
      continue;
    }
    let inB = 0;
    for (let t = 1; t <= window && j + t < M; t++)
      if (eq(i, j + t)) {
        inB = t;
        break;
      }
    let inA = 0;
    for (let t = 1; t <= window && i + t < N; t++)
      if (eq(i + t, j)) {
        inA = t;
        break;
      }
    if (inB > 0 && (inA === 0 || inB <= inA)) {
      for (let t = 0; t < inB; t++) ops.ins(j + t);
      j += inB;
    } else if (inA > 0) {
      for (let t = 0; t < inA; t++) ops.del(i + t);
      i += inA;
    } else {
      ops.del(i++);
      ops.ins(j++);
    }
  }
  while (i < N) ops.del(i++);
  while (j < M) ops.ins(j++);
  return ops;
}

/** Calls `pair(i, j)` for every aligned pair an edit script leaves, in order. */
export function forEachMatch(ops: Iterable<EditOp>, n: number, m: number, pair: (i: number, j: number) => void): void {
  forEachColumn(ops, n, m, (i, j) => {
    if (i >= 0 && j >= 0) pair(i, j);
  });
}

/** Calls `column(i, j)` for every step of the alignment in order: aligned (i, j), deleted (i, -1), inserted (-1, j). */
export function forEachColumn(ops: Iterable<EditOp>, n: number, m: number, column: (i: number, j: number) => void): void {
  let i = 0;
  let j = 0;
  for (const op of ops) {
    const stop = op.op === 'del' ? op.i - i : op.j - j;
    for (let t = 0; t < stop; t++) column(i++, j++);
    if (op.op === 'del') column(i++, -1);
    else column(-1, j++);
  }
  while (i < n && j < m) column(i++, j++);
}
