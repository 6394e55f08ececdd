/**
 * The pipeline-file form of `chatport export` (e.g. pipelines/nightly-analytics.yaml): the same settings
 * as the flags; a flag given on the command line wins over the file. Values may use `${VAR}` and
 * `${VAR:-default}` (as in import pipeline files). Secrets are never read from the file: credentials
 * come from the environment only.
 */
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { interpolate } from '../../config/interpolate.js';
import { issuesFromZod } from '../../config/issues.js';
import { locate } from '../../config/locate.js';
import { ConfigError, InputMissingError } from '../../shared/errors.js';
import { OUTPUT_FORMATS } from '../../sinks/index.js';
import { EXPORT_DATASETS } from './schemas.js';

const positiveInt = z.coerce.number().int().positive();
const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);
const optionalText = z.preprocess(blankToUndefined, z.string().optional());

export const ExportPipelineFile = z.strictObject({
  /** Marks the file as an export pipeline (import pipeline files have `stages` instead). */
  kind: z.literal('export'),
  name: z.string().min(1).optional(),
  /** `all`, one dataset, or a list. */
  datasets: z.union([z.enum(['all', ...EXPORT_DATASETS]), z.array(z.enum(EXPORT_DATASETS)).min(1)]).default('all'),
  /** A local directory or `s3://bucket/prefix`. */
  to: z.string().min(1),
  format: z.enum(OUTPUT_FORMATS).default('parquet'),
  /** YYYY-MM-DD, an ISO timestamp, `today` or `yesterday` (UTC); `--date` wins. Default today. */
  date: optionalText,
  /** A window of whole UTC days [since, until) instead of one date; `--since/--until` win. */
  since: optionalText,
  until: optionalText,
  /** Export the days due since the last run (the state folder remembers it); `--incremental` sets it too. */
  incremental: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : blankToUndefined(v)), z.boolean().optional()),
  /** The incremental state folder; default `.chatport/export-<name>`. */
  state: optionalText,
  runId: optionalText,
  timestampUnit: z.enum(['ms', 'us']).default('us'),
  maxFileBytes: z.preprocess(blankToUndefined, positiveInt.optional()),
  parquet: z
    .strictObject({
      compression: z.enum(['zstd', 'snappy', 'gzip', 'uncompressed']).optional(),
      rowGroupRows: z.preprocess(blankToUndefined, positiveInt.optional()),
    })
    .optional(),
  text: z.strictObject({ gzipLevel: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(9).optional()) }).optional(),
  rejects: z
    .strictObject({
      dir: optionalText,
      max: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).optional()),
    })
    .optional(),
  s3: z
    .strictObject({
      endpoint: optionalText,
      region: optionalText,
      forcePathStyle: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : blankToUndefined(v)), z.boolean().optional()),
    })
    .optional(),
  job: z
    .strictObject({
      pollIntervalSeconds: z.preprocess(blankToUndefined, z.coerce.number().positive().optional()),
      timeoutSeconds: z.preprocess(blankToUndefined, z.coerce.number().positive().optional()),
    })
    .optional(),
  /** Connection settings without secrets (those come from CHATPORT_CLIENT_SECRET / CHATPORT_ACCESS_TOKEN). */
  api: z.strictObject({ url: optionalText, tokenUrl: optionalText, clientId: optionalText, pathPrefix: optionalText }).optional(),
});
export type ExportPipelineFile = z.infer<typeof ExportPipelineFile>;

function interpolateAll(value: unknown, env: Readonly<Record<string, string | undefined>>, path: string, problems: string[]): unknown {
  if (typeof value === 'string') {
    const result = interpolate(value, env);
    for (const p of result.problems) problems.push(`${path}: ${p}`);
    for (const name of result.missing) problems.push(`${path}: \${${name}} is not set (give it a value or a default: \${${name}:-…})`);
    return result.value;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateAll(v, env, `${path}[${i}]`, problems));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, env, path ? `${path}.${k}` : k, problems)]));
  return value;
}

/** An import pipeline file given here would otherwise read as a dozen schema complaints. */
function isImportPipeline(raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || 'kind' in raw) return false;
  return ['stages', 'slack', 'discord', 'mattermost'].some((block) => block in raw);
}

/** Parses and checks a pipeline file's text; throws a ConfigError (exit 78) naming the file and field. */
export function parseExportPipelineFile(text: string, path: string, env: Readonly<Record<string, string | undefined>>): ExportPipelineFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  const [yamlError] = doc.errors;
  if (yamlError) throw new ConfigError(`${path}:${lines.linePos(yamlError.pos[0]).line}: not valid YAML: ${yamlError.message.split('\n')[0]}`, { path }, yamlError);
  let raw: unknown;
  try {
    // yaml refuses alias chains that expand without bound: a file problem, not a bug.
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new ConfigError(`${path}: not valid YAML: ${(error as Error).message}`, { path }, error);
  }
  if (isImportPipeline(raw))
    throw new ConfigError(
      `${path}: this is an import pipeline file (it has stages, or a slack, discord or mattermost block, and no kind: export); run it with \`chatport import <file>\`. export --pipeline takes an export pipeline file: kind: export, as pipelines/nightly-analytics.yaml (docs/export.md)`,
      { path },
    );
  const problems: string[] = [];
  const interpolated = interpolateAll(raw, env, '', problems);
  if (problems.length > 0) throw new ConfigError(`${path}: ${problems.join('; ')}`, { path, problems });
  const parsed = ExportPipelineFile.safeParse(interpolated);
  if (!parsed.success) {
    // The words and places of an import pipeline file's problems: file:line, the field, what was expected.
    const issues = issuesFromZod(parsed.error.issues, interpolated, [], ExportPipelineFile).map((issue) => {
      const line = locate(doc, lines, issue.path)?.line;
      return `  ${path}${line === undefined ? '' : `:${line}`}: ${issue.message}`;
    });
    throw new ConfigError(`pipeline file ${path} has ${issues.length} problem(s):\n${issues.join('\n')}`, { path, issues });
  }
  return parsed.data;
}

export async function readExportPipelineFile(path: string, env: Readonly<Record<string, string | undefined>>): Promise<ExportPipelineFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // As for an import pipeline file: a file that is not there is missing input (66), not a configuration mistake.
    throw new InputMissingError(`pipeline file ${path} cannot be read: ${(error as Error).message}`, { path }, error);
  }
  return parseExportPipelineFile(text, path, env);
}
