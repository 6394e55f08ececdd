import type { Readable } from 'node:stream';
import { parseRecordBatches } from '../../formats/index.js';
import { mappedByChatport, stageProcessorSpec, type PipelineConfig, type StageConfig } from '../../config/index.js';
import { ConfigError } from '../../shared/errors.js';
import { closest } from '../../shared/closest-name.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { listStageInputs } from './stage-inputs.js';
import { numberedFilesOrderWarning } from './input-order.js';
import { FieldPresence, fieldRefName, stageSourceFields, type MappedSourceField } from '../../transform/index.js';
import type { RunWarning } from '../report.js';


/**
 * Checks, before anything is sent, that every source field a stage names (mapping, key, channel, skip
 * rules) is in its input: against the header of every CSV file of the stage (a missing column is a
 * ConfigError, exit 78, naming the pipeline path, the column and the columns there are); for NDJSON and
 * JSON, whose records may each have other fields, against the first batch of records of the stage's first
 * file: a field none of them has is a warning. Slack stages are mapped by chatport and not checked.
 */
export async function checkMappedFields(config: PipelineConfig, sources: InputSourceOptions, signal: AbortSignal): Promise<RunWarning[]> {
  const errors: string[] = [];
  const warnings: RunWarning[] = [];
  for (const stage of config.stages) {
    if (mappedByChatport(stage) || signal.aborted) continue;
    const fields = stageSourceFields(stageProcessorSpec(config, stage));
    let firstRecordsChecked = false;
    const inputs = await listStageInputs(stage, sources);
    const order = numberedFilesOrderWarning(stage, inputs.map((input) => input.uri));
    if (order) warnings.push(order);
    for (const input of inputs) {
      const head = await readHead(stage, input.uri, input.open());
      if (head.columns) {
        const missing = missingColumns(stage, fields, input.uri, head.columns);
        const hint = missing.length > 0 ? otherDelimiterHint(stage, input.uri, head.columns) : undefined;
        errors.push(...missing, ...(hint ? [hint] : []));
      }
      else if (!firstRecordsChecked && head.records.length > 0) {
        firstRecordsChecked = true;
        warnings.push(...absentFromFirstRecords(stage, fields, input.uri, head.records));
      }
    }
  }
  if (errors.length > 0)
    throw new ConfigError(`the pipeline names source fields its input does not have:\n${errors.map((e) => `  ${e}`).join('\n')}`, { problems: errors });
  return warnings;
}

/** A CSV file's columns, or the records of the first batch of another format. */
async function readHead(stage: StageConfig, file: string, bytes: Readable) {
  let columns: readonly string[] | undefined;
  const { source } = stage;
  const batches = parseRecordBatches(bytes, {
    file,
    gzip: source.gzip,
    encoding: source.encoding,
    csv: { ...source.csv, onColumns: (c) => (columns = c) },
    ...(source.format ? { format: source.format } : {}),
  });
  const first = await batches.next();
  await batches.return?.(undefined);
  const records = first.done ? [] : first.value.flatMap((item) => ('record' in item ? [item.record] : []));
  return { columns, records };
}

function missingColumns(stage: StageConfig, fields: readonly MappedSourceField[], file: string, columns: readonly string[]): string[] {
  const problems: string[] = [];
  for (const { path, field } of fields) {
    const where = `stages.${stage.stage}.${path}`;
    const name = typeof field === 'string' ? field : field[0]!;
    if (typeof field !== 'string' && field.length > 1 && columns.includes(name)) {
      problems.push(`${where}: names ${JSON.stringify(fieldRefName(field))}, a path into nested records, but ${file} is CSV: its rows are flat text (columns: ${columns.join(', ')})`);
      continue;
    }
    if (columns.includes(name)) continue;
    const guess = closest(name, columns);
    problems.push(`${where}: names the column ${JSON.stringify(name)}, which ${file} does not have (its columns: ${columns.join(', ')})${guess ? `; did you mean ${JSON.stringify(guess)}?` : ''}`);
  }
  return problems;
}

const LIKELY_DELIMITERS = [',', ';', '\t', '|'];

/**
 * A header read as one column that holds another common delimiter between names (a semicolon file from a
 * European Excel, a tab-separated "Unicode text" save) was split at the wrong character: says which to set.
 */
function otherDelimiterHint(stage: StageConfig, file: string, columns: readonly string[]): string | undefined {
  if (columns.length !== 1) return undefined;
  const [header] = columns;
  const delimiter = LIKELY_DELIMITERS.find((d) => d !== stage.source.csv.delimiter && header!.includes(d));
  if (delimiter === undefined) return undefined;
  return `${file}: its header is one column holding ${JSON.stringify(delimiter)} between names; the file's delimiter is likely ${JSON.stringify(delimiter)}: set the stage's source csv: { delimiter: ${JSON.stringify(delimiter)} }`;
}

function absentFromFirstRecords(stage: StageConfig, fields: readonly MappedSourceField[], file: string, records: Record<string, unknown>[]): RunWarning[] {
  const presence = new FieldPresence(fields);
  presence.observe(records.map((record) => ({ record })));
  const seen = new Set(records.flatMap((r) => Object.keys(r)));
  return presence.missing().map(({ path, field }) => {
    const name = fieldRefName(field);
    const guess = closest(typeof field === 'string' ? field : field[0]!, [...seen]);
    return {
      stage: stage.stage, path: `stages.${stage.stage}.${path}`, field: name,
      message: `stages.${stage.stage}.${path}: none of the first ${records.length} records of ${file} has the field ${JSON.stringify(name)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}`,
    };
  });
}
