/** Reading Slack exports (zip or folder): raw JSON records with their positions; mapping lives in src/transform/slack. */
export { SLACK_EXPORT_ERROR, SlackExportError, type SlackExportErrorCode } from './errors.js';
export type { ExportLayout, OpenSlackExportOptions, SlackExport } from './export.js';
export { SLACK_LAYOUT, layoutOfFilesEnding } from './export.js';
export { DEFAULT_SLACK_EXPORT_LIMITS, type SlackExportLimits } from './limits.js';
export { openSlackExport } from './open.js';
export { openFolderSlackExport } from './folder-export.js';
export { openZipSlackExport } from './zip-export.js';
export { readJsonArray, readWholeFile, readWholeText, type PositionedValue } from './read-json.js';
export {
  CONVERSATION_FILES,
  assertNoGridWorkspaces,
  assertSlackExportShape,
  findConversationFolder,
  listConversationFolders,
  listUnrecognizedFiles,
  readConversationDays,
  type DayReadOptions,
  readSlackConversations,
  readSlackUsers,
  type ConversationKind,
  type PositionedConversation,
  type SlackDay,
} from './read-records.js';
