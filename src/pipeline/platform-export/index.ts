import type { ExportPlatform } from '../../config/index.js';
import { discordExportReader } from '../discord/index.js';
import { mattermostExportReader } from '../mattermost/index.js';
import type { PlatformExportReader } from './types.js';

export type { PlatformExportReader, PlatformStageDeps } from './types.js';

const READERS: Record<ExportPlatform, PlatformExportReader> = {
  discord: discordExportReader,
  mattermost: mattermostExportReader,
};

export const platformExportReader = (platform: ExportPlatform): PlatformExportReader => READERS[platform];
