import { z } from 'zod';
import { ENCODING_ALIASES, SOURCE_ENCODINGS } from '../formats/decode-text.js';
import { FORMATS } from '../formats/types.js';
import type { MappingValue, NestedMapping } from '../transform/mapping-spec.js';
import { UNICODE_FORMS, UNIQUE_POLICIES, VALUE_TYPES } from '../transform/mapping-spec.js';
import { DUPLICATES_MODES } from '../transform/source-duplicates.js';

/**
 * The pipeline file format (pipelines/*.yaml). Every field is described here; these descriptions become the
 * JSON Schema (`chatport schema`) that editors show. Defaults that depend on other values (the state
 * directory, the token URL, options inherited from the top level) are applied by resolvePipelineConfig.
 */

/** Defaults for stage options; a stage's `options` and the top-level `options` override them. */
export const DEFAULT_STAGE_OPTIONS = {
  chunkRecords: 1000,
  chunkBytes: 1_048_576,
  concurrency: 4,
  lanes: 8,
  duplicates: 'reject',
  mode: 'insert',
  threads: 'replies',
  longBodies: 'reject',
} as const;

const fieldRef = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .describe('A source field by name, or a path into nested JSON records as a list of names (["user", "name"]).');

const valueType = z
  .enum(VALUE_TYPES)
  .describe(
    'Coerce the value: string; number (42, -1.5, 1e3); integer; boolean (true/false, yes/no, y/n, 1/0, on/off, any case); ' +
      'date (ISO 8601 text, UTC when no zone is given, or epoch milliseconds; becomes ISO 8601 text); json (parse JSON text).',
  );

const conditionShape = {
  field: fieldRef,
  equals: z.unknown().optional().describe('Holds when the value, as text, equals this.'),
  notEquals: z.unknown().optional().describe('Holds when the value is missing or differs from this.'),
  in: z.array(z.unknown()).optional().describe('Holds when the value is one of these.'),
  notIn: z.array(z.unknown()).optional().describe('Holds when the value is missing or none of these.'),
  matches: z.string().optional().describe('Holds when the text, without the spaces around it, matches this regular expression (JavaScript syntax).'),
  empty: z.boolean().optional().describe('true: holds when missing, null, or text of spaces only; false: when present.'),
};

const condition = z.strictObject(conditionShape).describe('A test on one source field: `field` and exactly one test. Values compare as text, without the spaces around it (a spreadsheet\'s "yes " is yes).');

const when = z
  .union([condition, z.array(condition).min(1)])
  .describe('The entry applies only to records for which this condition (or every condition of the list) holds; for other records it has no value (no default applies).');

const fieldRule = z
  .strictObject({
    field: fieldRef,
    type: valueType.optional(),
    split: z.string().min(1).optional().describe('Split text at this separator into an array; items are trimmed, empty items dropped; `type` applies to each item.'),
    default: z.unknown().optional().describe('Used when the source value is missing, null or empty text. With `type`, coerced to it once when the pipeline loads (one it cannot take is a configuration error); with `split`, a list; with `map`, taken as written; with `ref: user`, a users-stage key (or list of keys), resolved as the values are.'),
    trim: z.boolean().optional().describe('Trim whitespace around text before anything else. Default false.'),
    unicode: z.enum(UNICODE_FORMS).optional().describe('Unicode normalisation of text (after trim): NFC, NFD, NFKC or NFKD.'),
    case: z.enum(['lower', 'upper']).optional().describe('Case folding of text (after unicode).'),
    asName: z.boolean().optional().describe('Make the text a name the platform accepts: NFC, lower case, letters, digits, ".", "_" and "-" (others become "-"), at most the name length. Text with nothing left is missing.'),
    map: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Value map: the source value, as text, → the value to use, taken as written (e.g. {c: PUBLIC, p: PRIVATE, d: DIRECT}). A value with no entry takes `default`; without a default the record is rejected, naming the value and the keys. Spaces around a value or a key are ignored.'),
    unique: z
      .enum(UNIQUE_POLICIES)
      .optional()
      .describe('Only for `name` of users and channels: records with different keys never get the same name (compared without case). "suffix": the later one becomes name-2, name-3, …; "reject": it is rejected.'),
    ref: z.literal('user').optional().describe('"user": the value (or each item, with split) is the key of a record of the users stage; it becomes that user\'s name on the platform.'),
    when: when.optional(),
  })
  .describe('A source field, with optional normalisation, value map, coercion, splitting, default, unique-name policy and user reference.');

const templateRule = z
  .strictObject({
    template: z.string().describe('Text with {field} references, e.g. "{first} {last}"; {{ and }} are literal braces. The result is trimmed; missing fields are empty; when all are missing the value is missing.'),
    type: valueType.optional(),
    default: z.unknown().optional().describe('Used when the template gives empty text. With `type`, coerced to it once when the pipeline loads (one it cannot take is a configuration error).'),
    when: when.optional(),
  })
  .describe('Text combining source fields.');

const constRule = z.strictObject({ const: z.unknown().describe('The value, the same for every record, as written: 007 is the text "007", 42 the number 42.'), when: when.optional() }).describe('A constant.');

export const mappingValueSchema: z.ZodType<MappingValue> = z.lazy(() =>
  z
    .union([z.string().min(1).describe('The source field of this name (rename).'), fieldRule, templateRule, constRule, nestedMappingSchema])
    .describe('Where one field of the import item comes from.'),
);

/** Keys that make an object a rule: the mapping compiler reads such an object as that rule, never as a nested mapping. */
const RULE_KEYS = ['field', 'template', 'const'];

export const nestedMappingSchema: z.ZodType<NestedMapping> = z.lazy(() =>
  z
    .record(z.string(), mappingValueSchema)
    // Else a rule with a mistake (`type: bool`) passed as a nested mapping and failed on the first record;
    // `abort` makes the union see this branch fail and show the rule's own problem.
    .refine((m) => !RULE_KEYS.some((k) => Object.hasOwn(m, k)), { message: 'a mapping with field, template or const is a rule, and this one is not valid', abort: true })
    .describe('A mapping: each key is a field of the import item (or of a nested object such as properties); each value says where it comes from.'),
);

const skipRule = condition.describe('A rule that skips matching records (counted as skipped). Exactly one test besides `field`.');

const encodings = [...SOURCE_ENCODINGS, ...Object.keys(ENCODING_ALIASES)] as [string, ...string[]];
const encoding = z
  .enum(encodings)
  .describe(
    'Text encoding of the source files: utf-8 (default; a byte order mark is removed, and a UTF-16 byte order mark switches to UTF-16), latin1 (ISO-8859-1) or windows-1252 (a UTF-8 or UTF-16 byte order mark switches to that encoding), utf-16le, utf-16be, or utf-16 (byte order from the byte order mark). ' +
      'Aliases: utf8, ascii (read as utf-8), iso-8859-1, cp1252, utf16le, utf16be, utf16. A record holding bytes the encoding cannot read is rejected, naming the field and the byte.',
  );

const csvOptions = z
  .strictObject({
    header: z.boolean().default(true).describe('The first row names the columns. Default true.'),
    columns: z.array(z.string()).min(1).optional().describe('Column names; with header: true they replace the header row\'s names. Without header and columns, columns are named "1", "2", ….'),
    delimiter: z.string().min(1).default(',').describe('Field delimiter. Default ",".'),
    quote: z.string().length(1).default('"').describe('Quote character. Default \'"\'.'),
    bom: z.boolean().default(true).describe('Strip a leading byte order mark. Default true.'),
    encoding: encoding.optional().describe('The same as the source\'s `encoding` (kept for older files); give one of them.'),
  })
  .describe('CSV reading options.');

const sourceSchema = z
  .strictObject({
    path: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe(
        'Where the records are: a local path or glob (relative to the pipeline file\'s folder), or s3://bucket/key, s3://bucket/prefix/ or s3://bucket/glob*; or a list of these. Files are read in sorted order.',
      ),
    format: z.enum(FORMATS).optional().describe('csv, ndjson or json (one JSON array). Sniffed from the first bytes when absent.'),
    gzip: z.union([z.literal('auto'), z.boolean()]).default('auto').describe('"auto" (default): decompress when the bytes start with the gzip magic number.'),
    encoding: encoding.optional(),
    csv: csvOptions.prefault({}),
  })
  .describe('Where a stage\'s records come from.');

const stageOptions = z
  .strictObject({
    chunkRecords: z.number().int().min(1).max(100_000).optional().describe(`Most items per import file. Default ${DEFAULT_STAGE_OPTIONS.chunkRecords}.`),
    chunkBytes: z.number().int().min(1024).optional().describe(`Most bytes per import file. Default ${DEFAULT_STAGE_OPTIONS.chunkBytes} (1 MiB). A single item larger than this is rejected.`),
    concurrency: z.number().int().min(1).max(64).optional().describe(`Import jobs in flight at once; also the most reply sends, and reads of the platform (roots, verification), under way at once. Default ${DEFAULT_STAGE_OPTIONS.concurrency}.`),
    lanes: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        `Messages only: channels are spread over this many lanes (by channel id); a lane's chunks upload one after the other, which keeps every channel's messages in order, while lanes upload in parallel. At most min(lanes, concurrency) message jobs run at once. Changing it changes the chunks, so keep it for a resumed run. Default ${DEFAULT_STAGE_OPTIONS.lanes}.`,
      ),
    maxRejects: z.number().int().min(0).optional().describe('Stop the run when more records than this are rejected. Default: no limit.'),
    duplicates: z
      .enum(DUPLICATES_MODES)
      .optional()
      .describe(
        'A source key seen again in the stage: with the same content (the same import item) it is always counted as a duplicate and not sent again. With other content: "reject" (default) rejects the later record, naming where the key was first seen; ' +
          '"last-wins" imports the last record of each key, at its own place, and skips the earlier ones (counted in skipped, listed in the run folder\'s duplicates/). last-wins reads the stage\'s input twice (once to find each key\'s last record).',
      ),
    threads: z
      .enum(['replies', 'flatten'])
      .optional()
      .describe(
        'Messages of a stage with `thread` (and Slack thread replies): "replies" (default) sends each reply into its root\'s reply thread, in source order per thread, exactly once (journaled, looked up before any re-send); a reply whose root is unknown or was rejected goes into the channel and is counted as an orphan. "flatten" imports replies as channel messages, the parent kept in properties.',
      ),
    longBodies: z
      .enum(['reject', 'split'])
      .optional()
      .describe(
        'Messages: a body longer than the platform\'s limit (40,000 characters) is "reject"ed (default, naming the length), or "split" into consecutive messages, cut at a line break or a space where it can, order kept; each part carries properties.chatportPart {index, count} and counts as a record read, as in the Slack migration.',
      ),
    mode: z
      .enum(['insert', 'upsert'])
      .optional()
      .describe(
        'Users, channels and messages this pipeline imported before are compared with the source (users: name, displayName, isGuest, properties; channels: name, displayName, properties; messages: body, groupTag, properties). "insert" (default): a record whose content changed is left as the platform holds it, reported as changed (not applied) and listed in the run folder\'s changed/<stage>.ndjson. "upsert": it is updated with a merge patch and counted as updated; an upsert messages stage marks each message with properties.chatportKey, by which a later run finds it. Members and thread replies are never updated (docs/identity.md).',
      ),
  })
  .describe('How a stage is chunked and uploaded. Stage options override the top-level options.');

export const stageSchema = z
  .strictObject({
    source: sourceSchema,
    key: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe('The source field that identifies a record (or several, for a composite key). Idempotency keys derive from it: never change it between runs.'),
    channel: z.string().min(1).optional().describe('Members and messages only: the source field naming the record\'s channel by its key in the channels source.'),
    thread: z
      .string()
      .min(1)
      .optional()
      .describe('Messages only: the source field holding the key of the message this record replies to (empty for a message that is not a reply). Replies go into their root\'s reply thread after the stage\'s imports (options.threads), and every message of the stage carries properties.chatportKey so its replies can find it.'),
    mapping: nestedMappingSchema,
    skip: z.array(skipRule).default([]).describe('Records matching any rule are skipped (counted, not sent).'),
    onExisting: z
      .enum(['match', 'skip', 'fail'])
      .optional()
      .describe(
        'Users only: a source user the platform already has (a user not made by this pipeline, with the same name, or the same `matchBy` property). "match": not created; the records naming it (members, messages, channel members) are given to the platform user, counted as matched. "skip": not created, counted as skipped; references are left as written. "fail": the run stops before sending anything, naming them (exit 65). Default: sent as any other (the platform refuses a name it has).',
      ),
    matchBy: z
      .string()
      .regex(/^(name|properties\.[A-Za-z0-9_.-]+)$/, '"name" or "properties.<field>"')
      .optional()
      .describe('Users only, with onExisting: "name" (default), or "properties.<field>" (e.g. properties.email) to match a source user whose mapped properties hold the same value as exactly one platform user\'s.'),
    options: stageOptions.optional(),
  })
  .describe('One import stage.');

/** An export block's `onExistingUsers`: the users stage's `onExisting` (matched by name). */
const onExistingUsers = z
  .enum(['match', 'skip', 'fail'])
  .optional()
  .describe(
    'Users whose name the platform already holds for another user (another pipeline\'s, or another workspace\'s migrated by this one): "match" takes them as that user (their records name it), "skip" leaves them out, "fail" stops before sending. Default: such a user is rejected, and so are the records naming it (docs/mapping-language.md, onExisting).',
  );

/** The Slack form: one block instead of `stages`, mapped by chatport itself (docs/slack-migration.md). */
export const slackSchema = z
  .strictObject({
    export: z
      .string()
      .describe('The Slack export: its .zip file or its unpacked folder, on the local disk (relative to the pipeline file\'s folder). Write ${SLACK_EXPORT} to take it from the environment, as `chatport migrate slack <export>` does.'),
    systemMessages: z
      .enum(['import', 'skip'])
      .default('import')
      .describe('Join, leave, topic, purpose, rename, archive and other system messages: "import" them as SYSTEM_TEXT (default) or "skip" them (counted as skipped). Thread tombstones are always imported.'),
    teamId: z.string().min(1).optional().describe('The workspace id used in source and idempotency keys. Default: the most common team_id in users.json. Never change it between runs of the same export.'),
    onExistingUsers,
    maxTrackedThreadRoots: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Thread roots remembered per channel to mark replies whose root is not in the export. Default 100000.'),
    reorderWindow: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Messages of a conversation held back in day files before the two a day file is read after (always held: a time zone change moves a message at most two day files) so that a message filed further after its own day moves back into ts order (exports merged by hand). Default 0; one filed further back than the window reaches is imported out of order, with a run warning.'),
  })
  .describe(
    'Import a whole Slack export (zip or folder): users, channels, members and messages, in that order, mapped as docs/slack-migration.md describes. Use instead of `stages`; the top-level `options` apply to all four stages.',
  );

/** The Discord and Mattermost forms: as `slack`, one block instead of `stages` (docs/source-properties.md). */
function platformExportSchema(platform: string, what: string, envName: string, doc: string) {
  return z
    .strictObject({
      export: z
        .string()
        .describe(`The ${platform} export: ${what}, on the local disk (relative to the pipeline file's folder). Write \${${envName}} to take it from the environment, as \`chatport migrate ${platform.toLowerCase()} <export>\` does.`),
      systemMessages: z
        .enum(['import', 'skip'])
        .default('import')
        .describe('Join, pin, call, rename and other system messages: "import" them as SYSTEM_TEXT (default) or "skip" them (counted as skipped).'),
      onExistingUsers,
    })
    .describe(`Import a whole ${platform} export: users, channels, members and messages, in that order, mapped as ${doc} describes. Use instead of \`stages\`; the top-level \`options\` apply to all four stages.`);
}

export const discordSchema = platformExportSchema('Discord', 'a folder or .zip of DiscordChatExporter JSON files (one per channel or thread)', 'DISCORD_EXPORT', 'docs/discord-migration.md');
export const mattermostSchema = platformExportSchema('Mattermost', 'its bulk export (.jsonl) or a .zip holding it and its attachments', 'MATTERMOST_EXPORT', 'docs/mattermost-migration.md');

const apiSchema = z
  .strictObject({
    url: z.url().describe('Base URL of the Management API, e.g. ${CHATPORT_API_URL}.'),
    tokenUrl: z.url().optional().describe('OAuth 2.0 token URL. Default: <origin of url>/oauth/token.'),
    clientId: z.string().min(1).describe('OAuth client id, e.g. ${CHATPORT_CLIENT_ID}.'),
    clientSecret: z.string().min(1).describe('OAuth client secret. Write ${CHATPORT_CLIENT_SECRET}, never the secret itself.'),
    pathPrefix: z.string().default('').describe('Prefix before every API path (older revisions serve under /v1). Default "".'),
  })
  .describe('The platform to import into. Without this block, the CHATPORT_* environment variables (and the --api-url, --token-url, --client-id flags) give it.');

const s3Schema = z
  .strictObject({
    region: z.string().min(1).optional().describe('AWS region. Default: the SDK\'s default chain (AWS_REGION, profile).'),
    endpoint: z.url().optional().describe('Endpoint of an S3-compatible store, e.g. http://127.0.0.1:9000.'),
    forcePathStyle: z.boolean().optional().describe('Path-style addressing (bucket in the path), which most S3-compatible stores need. Default: true with an endpoint (here, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL), else false.'),
    checksums: z
      .enum(['WHEN_SUPPORTED', 'WHEN_REQUIRED'])
      .optional()
      .describe('The SDK\'s request checksum calculation and response validation. Many S3-compatible stores need WHEN_REQUIRED. Default: WHEN_REQUIRED with an endpoint, else the SDK default.'),
  })
  .describe('S3 settings for s3:// sources. Credentials come from the AWS SDK\'s default chain, never from this file.');

export const pipelineFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this format, for editors.'),
    version: z.literal(1).default(1).describe('Format version of this file. Default 1.'),
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 128')
      .describe('The pipeline\'s name: shown in reports and logs, and its identity (see `id`) unless `id` is given.'),
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 128')
      .optional()
      .describe('The pipeline\'s identity on the platform: part of every idempotency key and of the properties by which chatport finds its users and channels again, and of the default state folder. Default: the name. To rename a pipeline that has run, set `id` to its old name.'),
    api: apiSchema.optional(),
    s3: s3Schema.optional(),
    state: z.string().min(1).optional().describe('Folder for run state (ledger, chunks, rejects, reports). Default .chatport/<name>/ in the current folder.'),
    options: stageOptions.optional(),
    slack: slackSchema.optional(),
    discord: discordSchema.optional(),
    mattermost: mattermostSchema.optional(),
    stages: z
      .strictObject({
        users: stageSchema.optional(),
        channels: stageSchema.optional(),
        members: stageSchema.optional(),
        messages: stageSchema.optional(),
      })
      .optional()
      .describe('The stages to run; they run in the order users, channels, members, messages. Required unless the file has a `slack`, `discord` or `mattermost` block.'),
  })
  .describe('A chatport pipeline: where records come from and how they become users, channels, members and messages.');

export type PipelineFile = z.output<typeof pipelineFileSchema>;
export type PipelineFileInput = z.input<typeof pipelineFileSchema>;
export type StageFile = z.output<typeof stageSchema>;
export type SlackFile = z.output<typeof slackSchema>;
export type PlatformExportFile = z.output<typeof discordSchema>;
