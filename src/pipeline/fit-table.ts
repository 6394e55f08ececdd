/**
 * A table of text cells laid out to fit a terminal's width: first every column; if too wide, without the
 * columns the caller marks droppable whose cells are all "0" (breakdowns with nothing to say); if still too
 * wide, one block per row with a `header value` pair per line. Every line is at most `width` characters
 * (a cell longer than that is cut with `…`). Without a width, the full table. Pure.
 */
export function fitTable(header: string[], rows: string[][], options: { width?: number; droppableWhenZero?: ReadonlySet<string> } = {}): string[] {
  const width = options.width ?? Infinity;
  const all = header.map((_, i) => i);
  const table = layOut(header, rows, all);
  if (table.every((l) => l.length <= width)) return table;
  const kept = all.filter((i) => !(options.droppableWhenZero?.has(header[i]!) && rows.every((r) => r[i] === '0' || r[i] === '')));
  const narrower = layOut(header, rows, kept);
  if (narrower.every((l) => l.length <= width)) return narrower;
  return blocks(header, rows, kept).map((l) => (l.length <= width ? l : `${l.slice(0, Math.max(0, width - 1))}…`));
}

function layOut(header: string[], rows: string[][], columns: number[]): string[] {
  const widths = columns.map((i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => columns.map((i, k) => (k === 0 ? cells[i]!.padEnd(widths[k]!) : cells[i]!.padStart(widths[k]!))).join('  ');
  return [line(header), ...rows.map(line)];
}

/** `users` then `  read  3` … : narrow enough for any terminal. */
function blocks(header: string[], rows: string[][], columns: number[]): string[] {
  const [first, ...rest] = columns;
  const labelWidth = Math.max(...rest.map((i) => header[i]!.length));
  return rows.flatMap((r) => [r[first!]!, ...rest.filter((i) => r[i] !== '').map((i) => `  ${header[i]!.padEnd(labelWidth)}  ${r[i]}`)]);
}
