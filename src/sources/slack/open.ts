import { stat } from 'node:fs/promises';
import { InputMissingError } from '../../shared/errors.js';
import type { OpenSlackExportOptions, SlackExport } from './export.js';
import { openFolderSlackExport } from './folder-export.js';
import { openZipSlackExport } from './zip-export.js';

/** Opens an export (Slack's unless `options.layout` says otherwise) from a folder or a `.zip` file (told apart by what the path is, not its name). */
export async function openSlackExport(path: string, options: OpenSlackExportOptions = {}): Promise<SlackExport> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (cause) {
    throw new InputMissingError(`${options.layout?.name ?? 'Slack export'} ${path} does not exist or cannot be read`, { file: path }, cause);
  }
  return isDirectory ? openFolderSlackExport(path, options) : openZipSlackExport(path, options);
}
