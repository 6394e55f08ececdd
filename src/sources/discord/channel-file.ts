import { pipeline } from 'node:stream';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import streamValues from 'stream-json/streamers/stream-values.js';
import { recordTextProblem, type RecordTextProblem, type TextMarks } from '../../shared/json-checks/export-text.js';
import { SurrogateEscapeScan, mayHoldLoneSurrogate } from '../../shared/json-checks/lone-surrogates.js';
import { Utf8MarkingStream } from '../../shared/utf8-marks.js';
import { readBatches } from '../../shared/read-batches.js';
import { ChatportError } from '../../shared/errors.js';
import { SLACK_EXPORT_ERROR, openSlackExport, layoutOfFilesEnding, readWholeText, type SlackExport } from '../slack/index.js';

/**
 * A DiscordChatExporter JSON export: a folder (or a zip of it) of JSON files, one per channel, thread or
 * DM (or several per channel when exported with --partition). Each file is `{guild, channel, dateRange,
 * exportedAt, messages: [...], messageCount}`; a file may be gigabytes, so its messages are streamed.
 */
export const DISCORD_LAYOUT = layoutOfFilesEnding('Discord export (DiscordChatExporter JSON files)', '.json');

export function openDiscordExport(path: string): Promise<SlackExport> {
  return openSlackExport(path, { layout: DISCORD_LAYOUT });
}

/** The channel files of an export: its .json files outside media folders (other files are not read). */
export const discordChannelFiles = (exp: SlackExport): string[] => exp.files.filter((f) => f.endsWith('.json') && !inMediaFolder(f));

/**
 * DiscordChatExporter's --media downloads a file's attachments into `<file>_Files/` beside it: a .json
 * someone uploaded lands there, and is no channel file.
 */
const inMediaFolder = (path: string) => path.split('/').slice(0, -1).some((folder) => folder.endsWith('_Files'));

/** A file that is not a DiscordChatExporter channel file. */
export class DiscordFileError extends ChatportError {
  constructor(message: string, details: Record<string, unknown>, cause?: unknown) {
    super(message, { code: SLACK_EXPORT_ERROR.jsonInvalid, details, cause });
  }
}

/** A file's `dateRange` (DiscordChatExporter's --after and --before, null when not given). */
export interface DiscordDateRange {
  after?: unknown;
  before?: unknown;
}

/** The header values read, by the top-level key they stand at; `messages.0` ends the header. */
const HEADER_KEYS = new Set(['guild', 'channel', 'dateRange', 'exportedAt']);

/**
 * The `guild`, `channel` and `dateRange` objects and the `exportedAt` time at the top of a file: read
 * until the first message (or the messages array's end), the rest left unread; `marks`: what their text
 * showed (a name holding an unreadable byte or a lone surrogate is not taken).
 */
export async function readDiscordHeader(exp: SlackExport, file: string): Promise<{ guild: unknown; channel: unknown; dateRange?: DiscordDateRange; exportedAt?: string; firstMessageId?: string; marks: TextMarks }> {
  const utf8 = new Utf8MarkingStream();
  const scan = new SurrogateEscapeScan();
  // The filter is called at each value's start, in file order, so the keys it takes name the values
  // streamValues then emits. The first message is taken for its id and to stop there: a file may be gigabytes.
  const keys: string[] = [];
  const filter = (stack: unknown[]): boolean => {
    const top = stack.length === 1 && typeof stack[0] === 'string' && HEADER_KEYS.has(stack[0]);
    const first = stack.length === 2 && stack[0] === 'messages' && stack[1] === 0;
    if (top || first) keys.push(first ? 'messages' : (stack[0] as string));
    return top || first;
  };
  const values = pipeline(await exp.openFile(file), utf8, scan, pick.withParserAsStream({ filter }), streamValues.asStream(), () => undefined);
  const found: Record<string, unknown> = {};
  try {
    for await (const { value } of values as AsyncIterable<{ value: unknown }>) {
      const key = keys.shift();
      if (key === 'messages') {
        found.firstMessageId = snowflakeOf(value);
        break;
      }
      if (key !== undefined && found[key] === undefined) found[key] = value;
    }
  } catch (error) {
    // A break past the header (in the first message) is the messages pass's to report, as a cut.
    if (found.guild === undefined || found.channel === undefined)
      throw new DiscordFileError(`${exp.origin}: ${file} is not a readable JSON file (${(error as Error).message})`, { file: exp.origin, entry: file }, error);
  } finally {
    values.destroy();
  }
  if (found.guild === undefined || found.channel === undefined)
    throw new DiscordFileError(`${exp.origin}: ${file} has no guild and channel objects; is it a DiscordChatExporter JSON export?`, { file: exp.origin, entry: file });
  const dateRange = typeof found.dateRange === 'object' && found.dateRange !== null ? (found.dateRange as DiscordDateRange) : undefined;
  const exportedAt = typeof found.exportedAt === 'string' ? found.exportedAt : undefined;
  const firstMessageId = typeof found.firstMessageId === 'string' ? found.firstMessageId : undefined;
  return { guild: found.guild, channel: found.channel, dateRange, exportedAt, firstMessageId, marks: { invalidBytes: utf8.marked, surrogateEscapes: scan.seen } };
}

/**
 * Files up to this size are read whole and parsed with JSON.parse, several times faster than a streaming
 * parser; larger ones (a channel exported without --partition) are streamed, in flat memory.
 */
const WHOLE_FILE_BYTES = 16 * 2 ** 20;
const BATCH = 512;

/**
 * One message of a file, by its index. `unreadable`: the message holds a byte of the file that is not
 * UTF-8 (marked, never silently turned into U+FFFD) or a lone surrogate, so it is rejected by name.
 */
export interface DiscordFileMessage {
  key: number;
  value: unknown;
  unreadable?: RecordTextProblem;
}

/** The file's messages, in batches; a syntax error names the file and the last message read. */
export async function* readDiscordMessages(exp: SlackExport, file: string): AsyncGenerator<DiscordFileMessage[]> {
  const whole = await readWholeIfSmall(exp, file);
  if (whole === undefined) return yield* streamDiscordMessages(exp, file);
  let messages: unknown;
  try {
    messages = (JSON.parse(whole.text) as { messages?: unknown }).messages;
  } catch {
    // Not valid JSON as a whole: the streaming parser finds where it breaks and yields what comes before.
    return yield* streamDiscordMessages(exp, file);
  }
  if (!Array.isArray(messages)) throw new DiscordFileError(`${exp.origin}: ${file} has no messages array; is it a DiscordChatExporter JSON export?`, { file: exp.origin, entry: file });
  const marks = { invalidBytes: whole.invalidBytes, surrogateEscapes: mayHoldLoneSurrogate(whole.text) };
  // Newest first (DiscordChatExporter's reverse order): read from the end; each keeps its index in the file.
  const keyAt = newestFirst(messages[0], messages[messages.length - 1]) ? (i: number) => messages.length - 1 - i : (i: number) => i;
  for (let i = 0; i < messages.length; i += BATCH) {
    const batch: DiscordFileMessage[] = [];
    for (let j = i; j < Math.min(i + BATCH, messages.length); j++) batch.push({ key: keyAt(j), value: messages[keyAt(j)] });
    yield withUnreadable(batch, marks);
  }
}

/** A message's id when it is a snowflake string. */
function snowflakeOf(message: unknown): string | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' && /^\d{1,20}$/.test(id) ? id : undefined;
}

/** Whether a file lists its messages newest first: its first message's id is greater than its last's. */
function newestFirst(first: unknown, last: unknown): boolean {
  const a = snowflakeOf(first);
  const b = snowflakeOf(last);
  return a !== undefined && b !== undefined && (a.length - b.length || (a > b ? 1 : a < b ? -1 : 0)) > 0;
}

/** The batch, each message holding an unreadable byte's mark or a lone surrogate named (only looked for once the file showed one). */
function withUnreadable(batch: DiscordFileMessage[], marks: TextMarks): DiscordFileMessage[] {
  if (marks.invalidBytes === 0 && !marks.surrogateEscapes) return batch;
  for (const message of batch) {
    const unreadable = recordTextProblem(message.value, marks);
    if (unreadable) message.unreadable = unreadable;
  }
  return batch;
}

async function readWholeIfSmall(exp: SlackExport, file: string): Promise<{ text: string; invalidBytes: number } | undefined> {
  try {
    return await readWholeText(exp, file, WHOLE_FILE_BYTES);
  } catch (error) {
    if (error instanceof ChatportError && error.code === SLACK_EXPORT_ERROR.zipBomb) return undefined;
    throw error;
  }
}

async function* streamDiscordMessages(exp: SlackExport, file: string): AsyncGenerator<DiscordFileMessage[]> {
  const text = new Utf8MarkingStream();
  const scan = new SurrogateEscapeScan();
  const elements = pipeline(await exp.openFile(file), text, scan, pick.withParserAsStream({ filter: 'messages' }), streamArray.asStream(), () => undefined);
  let last = -1;
  try {
    for await (const batch of readBatches<DiscordFileMessage>(elements)) {
      // A file too large to read whole cannot be turned around in memory: named, not imported backwards.
      if (last === -1 && batch.length > 1 && newestFirst(batch[0]!.value, batch[1]!.value))
        throw new DiscordFileError(`${exp.origin}: ${file} lists its messages newest first (DiscordChatExporter's reverse order) and is larger than ${WHOLE_FILE_BYTES / 2 ** 20} MiB: export it again oldest first, or with --partition in parts under that size`, { file: exp.origin, entry: file, index: 0 });
      last = batch[batch.length - 1]?.key ?? last;
      yield withUnreadable(batch, { invalidBytes: text.marked, surrogateEscapes: scan.seen });
    }
  } catch (error) {
    throw new DiscordFileError(`${exp.origin}: ${file}: the messages cannot be read after message ${last} (${(error as Error).message})`, { file: exp.origin, entry: file, index: last + 1 }, error);
  } finally {
    elements.destroy();
  }
}
