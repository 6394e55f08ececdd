import busboy from 'busboy';
import { clientError, statusError } from './errors.js';
import type { Ctx } from './http.js';
import { parseJsonNoting, type ParsedJson } from '../shared/lossless-json.js';
import { unheldNumberProblem, type ItemProblem } from './import-validate.js';

/**
 * Largest import file accepted (the description gives no limit, §8): room for chunks of about a million
 * messages, while the text stays under V8's string limit (~512 MiB) and JSON.parse fits a default heap.
 */
export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Reads the multipart part `file` of an import request (other parts are ignored): its bytes, streamed
 * through busboy and bounded. A second part `file` is a 400: importing one and dropping the other would
 * lose its records without a word.
 */
export async function readImportBytes(ctx: Ctx, maxBytes = MAX_IMPORT_FILE_BYTES): Promise<Buffer> {
  const type = ctx.req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data'))
    throw clientError(`expected multipart/form-data with a part 'file', got content-type '${type || 'none'}'`);
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: ctx.req.headers, limits: { fileSize: maxBytes, fields: 20, parts: 30 } });
  } catch (error) {
    throw clientError(`malformed multipart request: ${(error as Error).message}`);
  }
  const bytes = await new Promise<Buffer | undefined>((resolve, reject) => {
    let file: Buffer | undefined;
    let failure: Error | undefined;
    let fileParts = 0;
    parser.on('file', (name, stream) => {
      if (name === 'file') fileParts += 1;
      if (name !== 'file' || fileParts > 1) {
        if (fileParts > 1) failure ??= clientError(`the multipart request must hold one part named 'file', got more`);
        stream.on('error', () => {});
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failure = statusError(413, `the part 'file' is larger than ${maxBytes} bytes`);
      });
      // busboy also fails the part's own stream on a truncated form; the parser's error answers it.
      stream.on('error', (error: Error) => {
        failure ??= clientError(`malformed multipart request: ${error.message}`);
      });
      stream.on('end', () => {
        if (!failure) file = Buffer.concat(chunks);
      });
    });
    parser.on('error', (error: Error) => reject(clientError(`malformed multipart request: ${error.message}`)));
    parser.on('close', () => (failure ? reject(failure) : resolve(file)));
    ctx.req.on('error', (error) => reject(clientError(`upload interrupted: ${error.message}`)));
    // A client that goes away mid-upload: settle, so the buffered part can be collected.
    ctx.req.on('close', () => {
      if (!ctx.req.complete) reject(clientError('upload interrupted: the connection closed before the body ended'));
    });
    ctx.req.pipe(parser);
  });
  if (bytes === undefined) throw clientError(`the multipart request has no part named 'file'`);
  return bytes;
}

/** An import file parsed: its items, and the first item holding a number a double cannot hold (if any). */
export interface ParsedImport {
  items: unknown[];
  unheld: ItemProblem | undefined;
}

/**
 * An import file's bytes as a JSON array, parsed in one go: JSON.parse is far faster than any streaming
 * parser here (docs: ~8 MB/s streamed vs hundreds in one go).
 */
export function parseImportFile(bytes: Buffer): ParsedImport {
  const text = bytes.toString('utf8');
  let parsed: ParsedJson;
  try {
    // Message items' channelId may be an int64 beyond 2^53 (see wire-ids.ts).
    parsed = parseJsonNoting(text, 'bigint');
  } catch (error) {
    throw clientError(`the part 'file' is not valid JSON (${(error as Error).message})`);
  }
  const items = parsed.value;
  if (!Array.isArray(items)) throw clientError(`the part 'file' must hold a JSON array, got ${items === null ? 'null' : typeof items}`);
  return { items, unheld: parsed.mayHoldExtremeNumber ? unheldNumberProblem(text) : undefined };
}
