/** Fields that say where a warning happened, shown after its message when present. */
const PLACE_FIELDS = ['stage', 'file', 'path', 'field', 'line'] as const;

/**
 * One JSON log line as one readable line for a terminal (`warning: <msg> (stage users, line 5)`), or
 * undefined when it is below `minLevel` or not a log line. Newlines in messages become spaces.
 */
export function noticeLine(jsonLine: string, minLevel: number): string | undefined {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const level = typeof entry.level === 'number' ? entry.level : levelNumber(String(entry.level));
  if (level < minLevel) return undefined;
  const label = level >= 50 ? 'error' : level >= 40 ? 'warning' : level >= 30 ? 'info' : 'debug';
  const place = PLACE_FIELDS.filter((k) => entry[k] !== undefined && entry[k] !== '').map((k) => `${k} ${String(entry[k])}`);
  const err = entry.err as { message?: string } | undefined;
  const text = [String(entry.msg ?? ''), err?.message && err.message !== entry.msg ? `: ${err.message}` : ''].join('');
  return `${label}: ${text}${place.length > 0 ? ` (${place.join(', ')})` : ''}`.replace(/\s*\n\s*/g, ' ');
}

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

function levelNumber(label: string): number {
  return LEVELS[label] ?? 0;
}
