/**
 * The logical date of an export run, as the partition `dt=YYYY-MM-DD` (UTC). Schedulers hand over their
 * logical date in several shapes, all accepted here: `2026-11-21` (Airflow `{{ ds }}`), a timestamp such
 * as `2026-11-21T02:30:00Z` or `2026-11-21T00:00:00+00:00` (Argo `scheduledTime`, Airflow
 * `logical_date`; taken as its UTC date), and the words `today` and `yesterday` (UTC). Pure.
 */
import { UsageError } from '../../shared/errors.js';
import { parseTimestamp } from './parse-cell.js';

const DAY_MS = 86_400_000;

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function resolveExportDate(value: string | undefined, nowMs: number): string {
  const text = (value ?? 'today').trim();
  const lower = text.toLowerCase();
  if (lower === 'today') return utcDate(nowMs);
  if (lower === 'yesterday') return utcDate(nowMs - DAY_MS);
  const parsed = parseTimestamp(text);
  if (parsed.ok && typeof parsed.value === 'bigint') {
    const ms = Number(parsed.value / 1000n);
    // A plain date is the partition itself; a timestamp names the UTC day it falls in.
    return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : utcDate(ms);
  }
  throw new UsageError(`invalid --date "${text}": expected YYYY-MM-DD, an ISO 8601 timestamp, "today" or "yesterday" (UTC)`, { date: text });
}
