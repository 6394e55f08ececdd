/**
 * The logical date of an export run, as the partition `dt=YYYY-MM-DD` (UTC). Schedulers hand over their
 * logical date in several shapes, all accepted here: `2026-11-21` (Airflow `{{ ds }}`), a timestamp such
 * as `2026-11-21T02:30:00Z` or `2026-11-21T00:00:00+00:00` (Argo `scheduledTime`, Airflow
 * `logical_date`; taken as its UTC date), and the words `today` and `yesterday` (UTC). Without one, the
 * previous full day (`yesterday`): a day not yet over would be published incomplete. Pure.
 */
import { UsageError } from '../../shared/errors.js';
import { parseTimestamp } from './parse-cell.js';
import { DAY_MS, dayOfMicros, utcDay } from './utc-day.js';

/** `source` names where the value was set (`--date`, `$CHATPORT_EXPORT_DATE`, the pipeline file's `date`), for the refusal. */
export function resolveExportDate(value: string | undefined, nowMs: number, source = '--date'): string {
  const text = (value ?? 'yesterday').trim();
  const lower = text.toLowerCase();
  if (lower === 'today') return utcDay(nowMs);
  if (lower === 'yesterday') return utcDay(nowMs - DAY_MS);
  const parsed = parseTimestamp(text);
  if (parsed.ok && typeof parsed.value === 'bigint')
    // A plain date is the partition itself; a timestamp names the UTC day it falls in.
    return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : dayOfMicros(parsed.value);
  throw new UsageError(`invalid ${source} "${text}": expected YYYY-MM-DD, an ISO 8601 timestamp, "today" or "yesterday" (UTC)`, { date: text, source });
}
