import type { StageConfig } from '../../config/index.js';
import type { RecordPosition } from '../../formats/index.js';
import { ChatportError, isChatportError } from '../../shared/errors.js';
import { thrownMessage } from '../../shared/thrown-message.js';

/**
 * An input object that cannot be read (on): a bad gzip header, a gzip cut short, a file the format cannot
 * read. DATA_INVALID (exit 65), naming the stage, the file and the position: `at` the record that does not
 * parse, or `after` the last record read before the bytes broke off.
 */
export function unreadableInput(stage: StageConfig, file: string, where: { at?: RecordPosition; after?: RecordPosition }, why: string, cause?: unknown): ChatportError {
  const position = where.at ?? where.after;
  const place = position === undefined ? '' : position.line !== undefined ? `line ${position.line}` : `record ${position.index}`;
  const text = where.at ? `${file} at ${place}` : where.after ? `${file} after ${place} (${position!.index + 1} records read)` : file;
  return new ChatportError(`the ${stage.stage} input ${text} cannot be read: ${why}`, {
    code: 'DATA_INVALID',
    details: {
      stage: stage.stage, file,
      ...(position?.line !== undefined ? { line: position.line } : {}),
      ...(position ? { index: position.index } : {}),
      ...(where.after ? { after: true } : {}),
    },
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** A failure while reading an input object: chatport's own errors as they are, others (zlib's, the stream's) named by file and position. */
export function inputReadFailure(stage: StageConfig, file: string, after: RecordPosition | undefined, error: unknown): unknown {
  if (isChatportError(error)) return error;
  const why = thrownMessage(error);
  return unreadableInput(stage, file, after ? { after } : {}, `${why} (a truncated or corrupt file?)`, error);
}
