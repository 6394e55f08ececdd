import type { Logger } from '../shared/logger.js';
import type { ChatEvents } from './chat-events.js';
import type { TokenStore } from './auth.js';
import type { Exports } from './exports.js';
import type { HostedFiles } from './hosted-files.js';
import type { JobEngine } from './jobs.js';
import type { Renderer } from './render.js';
import type { Store } from './store.js';
import type { WireIds } from './wire-ids.js';

/** What every route handler works with. */
export interface SandboxApp {
  store: Store;
  /** Store id ↔ wire id (the optional id base). */
  ids: WireIds;
  render: Renderer;
  tokens: TokenStore;
  jobs: JobEngine;
  exports: Exports;
  /** Files sent as multipart, served HOSTED without a token (hosted-files.ts). */
  files: HostedFiles;
  logger: Logger;
  /** `http://host:port`, the origin links are built on. */
  baseUrl(): string;
  /** Writes journaled changes to disk (a no-op in memory-only mode). */
  flush(): void;
  tokenLifetimeSeconds: number;
  /** The clock of lifetimes and rate-limit windows (options.ts `clock`). */
  clock: () => number;
  /** Where events that chat functions react to are fired (chat-events.ts). */
  chatEvents: ChatEvents;
}
