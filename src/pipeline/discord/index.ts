import type { PlatformExportReader } from '../platform-export/index.js';

/** Discord exports as pipeline stages (docs/discord-migration.md). */
export const discordExportReader: PlatformExportReader = {
  check: () => Promise.reject(new Error('the Discord reader is not built yet')),
  // eslint-disable-next-line require-yield
  async *readStageBatches() {
    throw new Error('the Discord reader is not built yet');
  },
};
