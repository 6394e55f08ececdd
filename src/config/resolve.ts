import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { isPair, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Document, Node, Pair } from 'yaml';
import { normalizeEncoding } from '../formats/decode-text.js';
import { MappingError } from '../transform/compile-mapping.js';
import { createStageProcessor } from '../transform/stage-processor.js';
import { CHANNEL_REF_STAGES, STAGE_ORDER } from '../transform/stages.js';
import type { StageKind } from '../transform/types.js';
import { interpolate } from './interpolate.js';
import { issuesFromZod } from './issues.js';
import type { ConfigIssue } from './issues.js';
import { keepLiteralCodesAsWritten, writtenScalar } from './literal-codes.js';
import { locate } from './locate.js';
import { DEFAULT_STAGE_OPTIONS, pipelineFileSchema } from './schema.js';
import { exportStages, resolvePlatformExport, resolveSlackSource } from './export-stages.js';
import type { PipelineFile, StageFile } from './schema.js';
import { EXPORT_PLATFORMS, type PipelineConfig, type StageConfig } from './types.js';

export interface ResolvePipelineOptions {
  /** Variables for `${NAME}` (pass `process.env` from the CLI). Default: none set. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The file's path: named in messages; relative source paths start from its folder. Default "pipeline.yaml" in the working folder. */
  path?: string;
  /**
   * A variable used without a default that is unset: "error" (default), or "warn" for commands that do not
   * talk to the platform (`chatport validate`): the value becomes empty, and problems that causes in the
   * `api` block become warnings and leave `config.api` out.
   */
  missingEnv?: 'error' | 'warn' | 'ignore';
}

export type ResolvePipelineResult =
  | { ok: true; config: PipelineConfig; warnings: ConfigIssue[] }
  | { ok: false; errors: ConfigIssue[]; warnings: ConfigIssue[] };

/** Fields an import item must have that the mapping has to provide (chatport derives the others). */
const REQUIRED_MAPPED: Record<StageKind, readonly string[]> = {
  users: ['name', 'displayName', 'isGuest'],
  channels: ['type', 'members'],
  members: ['username'],
  messages: ['type', 'body'],
};

function pathOf(node: Node, ancestors: readonly unknown[]): string {
  const chain = [...ancestors, node];
  const segments: string[] = [];
  for (let i = 0; i < chain.length - 1; i++) {
    const a = chain[i];
    if (isPair(a)) {
      const key = (a as Pair).key;
      segments.push(String(isScalar(key) ? key.value : key));
    } else if (isSeq(a)) segments.push(String(a.items.indexOf(chain[i + 1] as Node)));
  }
  return segments.join('.');
}

const RETYPED = /^(?:-?\d+(?:\.\d+)?|true|false)$/;

/** A RETYPED text's value as YAML reads it written plainly: `0250` is 250 (JSON.parse would throw). */
const typedAsYaml = (text: string): number | boolean => (text === 'true' ? true : text === 'false' ? false : Number(text));

/**
 * Interpolates every scalar value in place. Plain (unquoted) scalars that become a number or boolean are typed
 * as YAML would type the same text written in the file, and kept as written where literal-codes.ts says.
 */
function interpolateDocument(
  doc: Document,
  env: Readonly<Record<string, string | undefined>>,
  onIssue: (i: ConfigIssue, missing: boolean) => void,
  interpolated: Set<string>,
): void {
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (typeof node.value !== 'string') return;
      if (key === 'key') {
        // Keys are names, never interpolated: `${CODE}:` in a value map would match only that text, silently.
        if (node.value.includes('${')) {
          const path = `${pathOf(node, ancestors)}.${node.value}`;
          onIssue({ path, message: `${path}: keys are not interpolated, so "${node.value}" would be taken as it is written; write the key itself (a value map's key is the source's text)`, expected: 'a key without ${' }, false);
        }
        return;
      }
      const result = interpolate(node.value, env);
      if (!result.changed) return;
      const path = pathOf(node, ancestors);
      interpolated.add(path);
      for (const problem of result.problems) onIssue({ path, message: `${path}: ${problem}`, expected: '${NAME} or ${NAME:-default}' }, false);
      for (const name of result.missing)
        onIssue({ path, message: `${path}: the environment variable ${name} is not set (write \${${name}:-default} for a default)`, expected: `${name} set` }, true);
      const retyped = node.type === 'PLAIN' && RETYPED.test(result.value);
      node.value = retyped ? writtenScalar(result.value, typedAsYaml(result.value), key, ancestors) : result.value;
    },
  });
}

function resolveStage(stage: StageKind, file: StageFile, top: PipelineFile, baseDir: string): StageConfig {
  const paths = (typeof file.source.path === 'string' ? [file.source.path] : file.source.path).map((p) =>
    /^[a-z][a-z0-9+.-]*:\/\//i.test(p) || isAbsolute(p) ? p : resolvePath(baseDir, p),
  );
  const options = { ...DEFAULT_STAGE_OPTIONS, ...dropUndefined(top.options ?? {}), ...dropUndefined(file.options ?? {}) };
  const { encoding: csvEncoding, ...csv } = file.source.csv;
  if (csv.columns === undefined) delete csv.columns;
  const encoding = normalizeEncoding(file.source.encoding ?? csvEncoding ?? 'utf-8')!;
  const config: StageConfig = {
    stage,
    source: { paths, gzip: file.source.gzip, encoding, csv },
    key: file.key,
    mapping: file.mapping,
    skip: file.skip,
    options,
  };
  if (file.source.format !== undefined) config.source.format = file.source.format;
  if (file.channel !== undefined) config.channel = file.channel;
  if (file.thread !== undefined) config.thread = file.thread;
  if (file.onExisting !== undefined) config.onExisting = { policy: file.onExisting, by: file.matchBy ?? 'name' };
  return config;
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Checks a stage beyond its shape: the mapping compiles, required item fields are mapped, the channel field. */
function checkStage(stage: StageKind, file: StageFile, pipelineId: string, errors: ConfigIssue[]): void {
  const base = `stages.${stage}`;
  try {
    createStageProcessor(
      { pipelineId, stage, key: file.key, mapping: file.mapping, skip: file.skip, ...(file.channel === undefined ? {} : { channel: file.channel }), ...(file.thread === undefined ? {} : { thread: file.thread }) },
      { channelIds: () => 1, userNames: (key) => key },
    );
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    const path = `${base}.${String(error.details.path)}`;
    errors.push({ path, message: `${base}.${error.message}` });
  }
  const { encoding, csv } = file.source;
  if (encoding !== undefined && csv.encoding !== undefined && normalizeEncoding(encoding) !== normalizeEncoding(csv.encoding))
    errors.push({ path: `${base}.source.csv.encoding`, message: `${base}.source.csv.encoding: says ${csv.encoding} but source.encoding says ${encoding}; give only source.encoding`, expected: 'one encoding' });
  if (stage !== 'users' && (file.onExisting !== undefined || file.matchBy !== undefined))
    errors.push({ path: `${base}.onExisting`, message: `${base}: onExisting and matchBy apply to the users stage only`, expected: 'no onExisting' });
  if (file.matchBy !== undefined && file.onExisting === undefined)
    errors.push({ path: `${base}.matchBy`, message: `${base}.matchBy: needs onExisting (match, skip or fail)`, expected: 'onExisting set' });
  for (const field of REQUIRED_MAPPED[stage])
    if (!Object.hasOwn(file.mapping, field))
      errors.push({ path: `${base}.mapping.${field}`, message: `${base}.mapping.${field}: required: every ${stage} item needs ${field}`, expected: `a mapping for ${field}` });
}

/** The blocks that stand for all four stages of an export chatport maps itself. */
const EXPORT_BLOCKS = ['slack', 'discord', 'mattermost'] as const;
const EXPORT_ENV: Record<(typeof EXPORT_BLOCKS)[number], string> = { slack: 'SLACK_EXPORT', discord: 'DISCORD_EXPORT', mattermost: 'MATTERMOST_EXPORT' };

/**
 * A `slack:`, `discord:` or `mattermost:` block replaces `stages` (one of them, alone) and needs an export
 * path (an unset ${SLACK_EXPORT} leaves it empty).
 */
function checkExportBlocks(file: PipelineFile, errors: ConfigIssue[]): boolean {
  const blocks = EXPORT_BLOCKS.filter((b) => file[b] !== undefined);
  if (blocks.length === 0) return false;
  if (blocks.length > 1)
    errors.push({ path: blocks[1]!, message: `${blocks[1]}: a file imports one export; it also has a ${blocks[0]} block; remove one of them`, expected: 'one export block' });
  for (const block of blocks) {
    if (file.stages !== undefined)
      errors.push({ path: 'stages', message: `stages: a file with a ${block} block has no stages (the ${block} block stands for all four); remove one of them`, expected: `either ${block} or stages` });
    if (file[block]!.export.trim() === '')
      errors.push({ path: `${block}.export`, message: `${block}.export: empty; name the export's file or folder (e.g. \${${EXPORT_ENV[block]}} with ${EXPORT_ENV[block]} set)`, expected: `a path to a ${block} export` });
  }
  return true;
}

const EXPORT_FILE_HERE: ConfigIssue = {
  path: 'kind',
  message:
    'kind: export: this is an export pipeline file; run it with `chatport export --pipeline <file>` (docs/export.md). import, validate, verify and status take an import pipeline file: stages, or a slack, discord or mattermost block',
  expected: 'an import pipeline file',
};

/**
 * Reads a pipeline file's text into a PipelineConfig: YAML, `${ENV}` interpolation, the zod schema, then
 * checks that need the whole file (mappings compile, required fields are mapped). Pure: no file or network
 * I/O, no process.env unless passed. Problems are values: every error names its path in the file, what was
 * expected and, when it is written in the file, the line.
 */
export function resolvePipelineConfig(text: string, options: ResolvePipelineOptions = {}): ResolvePipelineResult {
  const env = options.env ?? {};
  const filePath = resolvePath(options.path ?? 'pipeline.yaml');
  const lines = new LineCounter();
  // `merge`: a `<<: *shared` key merges as YAML tools do (YAML 1.2 alone would make a field named "<<").
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true });
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const withPlace = (issue: ConfigIssue): ConfigIssue => ({ ...issue, ...locate(doc, lines, issue.path) });
  const fromYaml = (e: { message: string; pos: [number, number] }): ConfigIssue => {
    const at = lines.linePos(e.pos[0]);
    return { path: '', message: `YAML: ${e.message.split('\n')[0]}`, line: at.line, column: at.col };
  };
  for (const w of doc.warnings) warnings.push(fromYaml(w));
  if (doc.errors.length > 0) return { ok: false, errors: doc.errors.map(fromYaml), warnings };

  const missingPaths: string[] = [];
  const interpolated = new Set<string>();
  // `ignore`: a command that reads only the state folder (status, runs) needs no variable the api block names.
  const ignoreMissing = options.missingEnv === 'ignore';
  const warnMissing = options.missingEnv === 'warn' || ignoreMissing;
  const notes = ignoreMissing ? [] : warnings;
  keepLiteralCodesAsWritten(doc);
  interpolateDocument(doc, env, (issue, missing) => {
    if (missing) missingPaths.push(issue.path);
    (missing && warnMissing ? notes : errors).push(withPlace(issue));
  }, interpolated);
  let input: unknown;
  try {
    input = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // yaml refuses alias chains that expand without bound ("billion laughs"); a file problem, not a bug.
    return { ok: false, errors: [...errors, { path: '', message: `YAML: ${error instanceof Error ? error.message : String(error)}` }], warnings };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { ok: false, errors: [...errors, { path: '', message: 'the file must be a mapping with name and stages' }], warnings };
  // An export pipeline file here would otherwise get one "unknown field" per setting it has.
  if ((input as Record<string, unknown>).kind === 'export') return { ok: false, errors: [withPlace(EXPORT_FILE_HERE)], warnings };

  let parsed = pipelineFileSchema.safeParse(input);
  if (!parsed.success && warnMissing && missingPaths.some((p) => p.startsWith('api.'))) {
    const apiIssues = issuesFromZod(parsed.error.issues, input).filter((i) => i.path === 'api' || i.path.startsWith('api.'));
    if (apiIssues.length > 0) {
      notes.push(...apiIssues.map((i) => withPlace({ ...i, message: `${i.message} (ignored: the api block is left out)` })));
      const { api: _api, ...rest } = input as Record<string, unknown>;
      parsed = pipelineFileSchema.safeParse(rest);
    }
  }
  // An unset variable is already reported at its path; the empty value's schema error would say it twice.
  if (!parsed.success) errors.push(...issuesFromZod(parsed.error.issues, input, [], pipelineFileSchema).filter((i) => !missingPaths.includes(i.path)).map(withPlace));
  if (errors.length > 0 || !parsed.success) return { ok: false, errors, warnings };

  const file = parsed.data;
  const fileStages = file.stages ?? {};
  const defined = STAGE_ORDER.filter((s) => fileStages[s] !== undefined);
  if (!checkExportBlocks(file, errors) && defined.length === 0)
    errors.push(withPlace({ path: 'stages', message: 'stages: define at least one of users, channels, members, messages (or write a slack, discord or mattermost block)', expected: 'a stage' }));
  for (const stage of defined) checkStage(stage, fileStages[stage]!, file.id ?? file.name, errors);
  if (errors.length > 0) return { ok: false, errors: errors.map(withPlace), warnings };

  if (file.api && !interpolated.has('api.clientSecret'))
    warnings.push(withPlace({ path: 'api.clientSecret', message: 'api.clientSecret: written in the file; use ${CHATPORT_CLIENT_SECRET} so the secret stays out of it' }));
  if (defined.some((s) => CHANNEL_REF_STAGES.includes(s)) && fileStages.channels === undefined)
    warnings.push(withPlace({ path: 'stages', message: 'stages: members or messages name channels, but there is no channels stage; only channels an earlier run of this pipeline imported can be found' }));

  const baseDir = dirname(filePath);
  const config: PipelineConfig = {
    version: 1,
    name: file.name,
    id: file.id ?? file.name,
    state: file.state ?? `.chatport/${file.id ?? file.name}`,
    baseDir,
    stages: defined.map((s) => resolveStage(s, fileStages[s]!, file, baseDir)),
  };
  if (file.slack !== undefined) {
    config.slack = resolveSlackSource(file.slack, baseDir);
    config.stages = exportStages(file, { slack: config.slack });
  }
  for (const platform of EXPORT_PLATFORMS) {
    const block = file[platform];
    if (block === undefined) continue;
    config.platformExport = resolvePlatformExport(platform, block, baseDir);
    config.stages = exportStages(file, { platformExport: config.platformExport });
  }
  // As for the environment and --api-url: the token endpoint at the API's origin unless the file names one.
  if (file.api) config.api = { ...file.api, tokenUrl: file.api.tokenUrl ?? new URL('/oauth/token', file.api.url).href };
  if (file.s3) {
    config.s3 = {};
    if (file.s3.forcePathStyle !== undefined) config.s3.forcePathStyle = file.s3.forcePathStyle;
    if (file.s3.region !== undefined) config.s3.region = file.s3.region;
    if (file.s3.endpoint !== undefined) config.s3.endpoint = file.s3.endpoint;
    const checksums = file.s3.checksums ?? (file.s3.endpoint !== undefined ? 'WHEN_REQUIRED' : undefined);
    if (checksums !== undefined) config.s3.checksums = checksums;
  }
  return { ok: true, config, warnings };
}
