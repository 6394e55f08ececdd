import streamArray from 'stream-json/streamers/stream-array.js';
import type { TextMarks } from '../../shared/json-checks/export-text.js';
import { SurrogateEscapeScan } from '../../shared/json-checks/lone-surrogates.js';
import { utf8TextMarked } from '../../shared/utf8-marks.js';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import type { SlackExport } from './export.js';

/** One element of a JSON array file, with its position for error messages. */
export interface PositionedValue {
  /** Path inside the export, e.g. `users.json`. */
  file: string;
  /** Zero-based index in the file's top-level array. */
  index: number;
  value: unknown;
  /** What the file's text showed up to this element: a lone surrogate is looked for only after an escape of one. */
  marks: TextMarks;
}

/** Streams the elements of a top-level JSON array (users.json can be hundreds of megabytes). */
export async function* readJsonArray(exp: SlackExport, file: string): AsyncGenerator<PositionedValue> {
  const bytes = await exp.openFile(file);
  const scan = new SurrogateEscapeScan();
  const parser = streamArray.withParserAsStream();
  bytes.once('error', (error: Error) => parser.destroy(error));
  bytes.pipe(scan).pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ key: number; value: unknown }>)
      yield { file, index: item.key, value: item.value, marks: { invalidBytes: 0, surrogateEscapes: scan.seen } };
  } catch (cause) {
    if (cause instanceof SlackExportError) throw cause;
    throw new SlackExportError(`${exp.origin}: ${file} is not a valid JSON array (${(cause as Error).message})`, SLACK_EXPORT_ERROR.jsonInvalid, { file: exp.origin, entry: file }, cause);
  } finally {
    bytes.destroy();
    scan.destroy();
    parser.destroy();
  }
}

/**
 * Reads a whole file as text, refusing files larger than `maxBytes` before they exhaust memory. A byte that
 * is not UTF-8 is marked, never silently turned into U+FFFD: `invalidBytes` says how many, and the records
 * holding one are rejected by name (`unreadableTextIn`).
 */
export async function readWholeText(exp: SlackExport, file: string, maxBytes: number): Promise<{ text: string; invalidBytes: number }> {
  const { text, invalidBytes } = utf8TextMarked(await exp.readWhole(file, maxBytes));
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, invalidBytes };
}

/** readWholeText's text alone. */
export async function readWholeFile(exp: SlackExport, file: string, maxBytes: number): Promise<string> {
  return (await readWholeText(exp, file, maxBytes)).text;
}
