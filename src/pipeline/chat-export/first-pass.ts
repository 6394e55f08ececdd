import { stat } from 'node:fs/promises';
import { createChatDirectoryBuilder, type ChatDirectory } from '../../transform/chat-export/index.js';
import type { ChatExportAdapter } from './adapter.js';

interface CacheEntry {
  signature: string;
  pass: Promise<ChatDirectory>;
}

/**
 * Every stage of a run, and the channel-id lookup, need the same first pass; it reads every message, so
 * it runs once per pipeline config (one run) and export state. A new process runs it again: it is
 * deterministic, so a resumed run rebuilds the same chunks. Keyed weakly by the config.
 */
const cache = new WeakMap<object, Map<string, CacheEntry>>();

export async function chatFirstPassFor(config: object, adapter: ChatExportAdapter, platform: string, path: string, signal?: AbortSignal): Promise<ChatDirectory> {
  const signature = await stat(path).then((s) => `${s.size}:${s.mtimeMs}`, () => 'missing');
  let byExport = cache.get(config);
  if (byExport === undefined) cache.set(config, (byExport = new Map()));
  const cached = byExport.get(path);
  if (cached !== undefined && cached.signature === signature) return cached.pass;
  const pass = (async () => {
    const opened = await adapter.open(path);
    try {
      const builder = createChatDirectoryBuilder(platform);
      await opened.scan(builder, signal);
      return builder.build();
    } finally {
      await opened.close();
    }
  })();
  byExport.set(path, { signature, pass });
  // A failed or interrupted pass must not be served to the next caller.
  pass.catch(() => byExport.delete(path));
  return pass;
}
