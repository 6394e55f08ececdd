import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, LineCounter, Node } from 'yaml';

/**
 * Finds where a dotted path is written in the YAML document: the node itself, or the nearest parent that
 * is in the file (a missing required field is reported at the mapping that lacks it).
 */
export function locate(doc: Document, lines: LineCounter, path: string): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let at: Node | undefined = (doc.contents as Node | null) ?? undefined;
  for (const segment of path === '' ? [] : path.split('.')) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && String(isScalar(p.key) ? p.key.value : p.key) === segment);
      if (!pair) break;
      node = pair.value;
      at = ((pair.value as Node | null) ?? (pair.key as Node | null)) ?? at;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      at = item as Node;
    } else break;
  }
  const offset = at?.range?.[0];
  if (offset === undefined) return undefined;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}
