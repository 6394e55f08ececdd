import { ChatportError } from '../shared/errors.js';

/**
 * A file that cannot be read on as a whole (broken quoting, a JSON array cut in the middle, a top-level
 * value that is not an array). Single bad records are not errors: they come out as UnparseableRecord.
 */
export class FormatError extends ChatportError {
  constructor(message: string, details: { file: string; line?: number; index?: number; [k: string]: unknown }, cause?: unknown) {
    super(message, { code: 'DATA_INVALID', details, cause });
  }
}
