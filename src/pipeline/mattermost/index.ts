import type { PlatformExportReader } from '../platform-export/types.js';

/** Mattermost exports as pipeline stages (docs/mattermost-migration.md). */
export const mattermostExportReader: PlatformExportReader = {
  check: () => Promise.reject(new Error('the Mattermost reader is not built yet')),
  // eslint-disable-next-line require-yield
  async *readStageBatches() {
    throw new Error('the Mattermost reader is not built yet');
  },
};
