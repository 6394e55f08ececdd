import { ChatportError } from '../../shared/errors.js';

/** Stable codes of the ways a Slack export can be unreadable as a whole (not one bad record). */
export const SLACK_EXPORT_ERROR = {
  /** The path is neither a folder nor a zip, or holds no users.json / channels.json. */
  notAnExport: 'SLACK_EXPORT_NOT_FOUND',
  /** The zip's directory or an entry could not be read. */
  zipUnreadable: 'SLACK_ZIP_UNREADABLE',
  /** An entry path is absolute or climbs out with `..`. */
  pathEscape: 'SLACK_ZIP_PATH_ESCAPE',
  /** Entry count, entry size, compression ratio or total size beyond the configured guard. */
  zipBomb: 'SLACK_ZIP_BOMB',
  /** A JSON file is not valid JSON, or not the array/object the format requires. */
  jsonInvalid: 'SLACK_JSON_INVALID',
  /** An Enterprise Grid export: workspaces under `teams/<name>/`, whose conversations chatport does not map. */
  gridUnsupported: 'SLACK_GRID_UNSUPPORTED',
  /** A file asked for is not in the export. */
  fileMissing: 'SLACK_FILE_MISSING',
} as const;
export type SlackExportErrorCode = (typeof SLACK_EXPORT_ERROR)[keyof typeof SLACK_EXPORT_ERROR];

/** A Slack export that cannot be read; `details.file` names the export and `details.entry` the file inside. */
export class SlackExportError extends ChatportError {
  constructor(message: string, code: SlackExportErrorCode, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, { code, details, cause });
  }
}
