export { listRuns, type RunEntry } from './list-runs.js';
export { pruneRuns, type PruneOptions, type PruneResult } from './prune-runs.js';
export { formatRunList, formatPrune, formatBytes } from './format-runs.js';
export { folderBytes } from './folder-bytes.js';
