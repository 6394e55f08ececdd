import type { PipelineConfig, PlatformExportConfig, StageConfig } from '../../config/index.js';
import { platformExportReader } from '../platform-export/index.js';
import { isUnparseable, parseRecordBatches, type FormatName, type SourceItem } from '../../formats/index.js';
import type { ChatportError } from '../../shared/errors.js';
import type { InputObject, InputSourceOptions } from '../../sources/index.js';
import { listStageInputs } from './stage-inputs.js';
import { openSlackExport } from '../../sources/slack/index.js';
import { inputReadFailure, unreadableInput } from './input-errors.js';
import { listingOf, type InputListing } from './input-listing.js';
import type { StageName } from '../state/events.js';
import { parseOptionsOf } from './read-stage.js';

/**
 * Pre-flight: before the first upload, every stage's input exists, opens, and its first records parse, so
 * that a missing messages file or a corrupt gzip is found before users, channels and members were sent.
 * Steps, per stage: list every location (a path, glob or S3 prefix listing nothing is INPUT_MISSING, exit
 * 66, naming the pattern), then open every object and parse its first batch (a bad gzip header, a file the
 * format cannot read, or a first record that does not parse is DATA_INVALID, exit 65, naming file and
 * line; not a record broken alone, such as a stray quote, which the stage rejects as it would any later one).
 * Only the first batch of each object is read: the rest is found when the stage reads it.
 * Returns what each file stage's locations listed (input-listing.ts), for the journal and a resume's check.
 */
export async function preflightInputs(config: PipelineConfig, sources: InputSourceOptions, signal?: AbortSignal): Promise<Map<StageName, InputListing>> {
  const listings = new Map<StageName, InputListing>();
  const slackExports = new Set<string>();
  const platformExports = new Map<string, PlatformExportConfig>();
  for (const stage of config.stages) {
    if (signal?.aborted) return listings;
    if (stage.slack) slackExports.add(stage.slack.export);
    else if (stage.platformExport) platformExports.set(stage.platformExport.export, stage.platformExport);
    else {
      const inputs = await listStageInputs(stage, sources);
      for (const input of inputs) await checkFirstRecords(stage, input, inputs.some((other) => other !== input && other.size !== 0));
      listings.set(stage.stage, listingOf(inputs));
    }
  }
  for (const path of slackExports) await (await openSlackExport(path)).close();
  for (const source of platformExports.values()) await platformExportReader(source.platform).check(source.export);
  return listings;
}

/**
 * Opens one object and parses its first batch; the first record must be a record. `othersHoldData`: another
 * input of the stage is not empty, so an empty CSV is one part of many (Spark writes an empty part for an
 * empty partition), not an upstream export that failed.
 */
async function checkFirstRecords(stage: StageConfig, input: InputObject, othersHoldData: boolean): Promise<void> {
  const options = parseOptionsOf(stage, input.uri);
  let format: FormatName | undefined;
  let header = false;
  const batches = parseRecordBatches(input.open(), { ...options, onFormat: (f) => (format = f), csv: { ...options.csv, onColumns: () => (header = true) } });
  let first: SourceItem | undefined;
  try {
    const next = await batches.next();
    first = next.done ? undefined : next.value[0];
    if (next.done && format === 'csv' && stage.source.csv.header && !header && !othersHoldData) throw noHeaderRow(stage, input.uri);
    const wrapped = !next.done && format === 'ndjson' && next.value.length === 1 ? recordsWrappedIn(next.value[0]!, stage) : undefined;
    if (wrapped && (await batches.next()).done) throw oneWrappingObject(stage, input.uri, wrapped);
  } catch (error) {
    throw inputReadFailure(stage, input.uri, undefined, error);
  } finally {
    await batches.return?.(undefined).catch(() => undefined);
  }
  if (first && isUnparseable(first) && first.unparseable.alone !== true) {
    const hint = whatToDo(first.unparseable);
    // A message that names what it expected already ("expected 3 fields …, found 4") does not say it twice.
    const { message, expected } = first.unparseable;
    const said = message.includes(`expected ${expected}`) ? message : `${message} (expected ${expected})`;
    throw unreadableInput(stage, input.uri, { at: first.position }, `${said}; nothing was sent${hint ? ` — ${hint}` : ''}`);
  }
}

/**
 * The stage's only CSV input (or every one of them) read with a header has no line at all: a header row is
 * always there, even when no record is, so this is not an empty input but a broken one (an upstream export
 * that failed and left the file empty), which must not pass a scheduler as 0 records.
 */
function noHeaderRow(stage: StageConfig, file: string): ChatportError {
  return unreadableInput(stage, file, {}, 'it is empty (as is every input of the stage), where a header row naming the columns was expected; nothing was sent — if the file has no header row, name its columns in the stage\'s source: csv: { header: false, columns: [...] }');
}

/**
 * A record without the stage's key whose field holds a list of objects: likely a JSON document wrapping the
 * records (`{"users": [{…}, {…}]}`), which, on one line, reads as one NDJSON record. A genuine record keeps
 * its key, so a one-record NDJSON file whose record carries a list (roles, attachments) is not taken for one.
 */
function recordsWrappedIn(item: SourceItem, stage: StageConfig): { field: string; count: number } | undefined {
  if (isUnparseable(item)) return undefined;
  const keys = typeof stage.key === 'string' ? [stage.key] : stage.key;
  if (keys.some((key) => item.record[key] !== undefined)) return undefined;
  for (const [field, value] of Object.entries(item.record))
    if (Array.isArray(value) && value.length > 0 && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) return { field, count: value.length };
  return undefined;
}

/** A file that is one JSON object wrapping the records: there is no option to point at them, so say what the file must hold. */
function oneWrappingObject(stage: StageConfig, file: string, wrapped: { field: string; count: number }): ChatportError {
  const keys = typeof stage.key === 'string' ? stage.key : stage.key.join(', ');
  return unreadableInput(
    stage, file, {},
    `it holds one JSON object without the key field ${keys}, whose field ${JSON.stringify(wrapped.field)} holds ${wrapped.count} objects, where an array of records ([{…}, {…}]) or one record per line (NDJSON) was expected; nothing was sent — if those objects are the records, write them as the file's array or one per line (a source cannot point at records inside an object)`,
  );
}

/**
 * What to do about a first record that does not parse, for the two likeliest causes of a whole file that
 * does not: another text encoding, and one JSON document (not an array) that the sniffer read as NDJSON
 * because it starts with `{`.
 */
function whatToDo(problem: { expected: string; raw: unknown }): string | undefined {
  if (problem.expected.startsWith('text in '))
    return 'if the file is in another encoding, name it in the stage\'s source (encoding: windows-1252, latin1, utf-16le, utf-16be or utf-16)';
  if (problem.expected === 'one JSON object per line')
    return 'NDJSON holds one whole JSON object per line; a JSON file holds an array of records ([{…}, {…}]); a file that starts with { is read as NDJSON';
  return undefined;
}
