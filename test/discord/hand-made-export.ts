import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import type { PipelineConfig } from '../../src/config/index.js';
import type { ChatportClient } from '../../src/api/index.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';

/** Hand-made DiscordChatExporter JSON (its shapes, field for field) for tests of one case each. */
export const GUILD = { id: '1150000000000000001', name: 'Guild', iconUrl: 'https://cdn/g.png' };
export const LOBBY = { id: '661735342080000001', type: 'GuildTextChat', categoryId: '661735342080000000', category: 'Text Channels', name: 'lobby', topic: null };
export const LOBBY_FILE = 'Guild - Text Channels - lobby [661735342080000001].json';
export type Author = Record<string, unknown>;
export const ana: Author = { id: '532347774566400008', name: 'ana', discriminator: '0000', nickname: 'Ana', color: null, isBot: false, roles: [], avatarUrl: '' };
export const bo: Author = { id: '532347774566400009', name: 'bo', discriminator: '0000', nickname: 'bo', color: '#FF0000', isBot: false, roles: [], avatarUrl: '' };

/** A message on 2024-03-01 at 10:<minute> (+01:00). */
export const message = (id: string, minute: number, content: string, author = ana, extra: Record<string, unknown> = {}) => ({
  id, type: 'Default', timestamp: `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`, timestampEdited: null, callEndedTimestamp: null, isPinned: false, content, author,
  attachments: [], embeds: [], stickers: [], reactions: [], mentions: [], inlineEmojis: [], ...extra,
});

/** A channel file: its header and messages. */
export const file = (channel: object, messages: object[], dateRange: object = { after: null, before: null }) =>
  JSON.stringify({ guild: GUILD, channel, dateRange, exportedAt: '2024-05-06T07:08:09.123+00:00', messages, messageCount: messages.length });

/** A sandbox with an empty export folder in its directory. */
export async function fixtureWithExport(): Promise<{ f: ImportFixture; dir: string }> {
  const f = await startImportFixture();
  const dir = join(f.dir, 'export');
  await mkdir(dir);
  return { f, dir };
}

/** A snowflake made at a time (`2024-03-01T10:04:30+01:00`): Discord's ids carry their creation time. */
export const snowflakeAt = (iso: string, n = 0): string => String(((BigInt(Date.parse(iso)) - 1_420_070_400_000n) << 22n) + BigInt(n));

/** One import of the files (name → text) into a new sandbox, verified; the platform read back. */
export async function importFiles(files: Record<string, string>, discordOptions = ''): Promise<{ f: ImportFixture; report: RunReport; platform: PlatformState }> {
  const { f, dir } = await fixtureWithExport();
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n${discordOptions}`);
  const report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  return { f, report, platform: await readPlatform(f.client) };
}

/**
 * Nightly runs over one export folder onto one sandbox, as a scheduled job makes them: each run's lobby file
 * and `threadFile` written in turn, each imported (and verified) in the job's one state folder; the
 * platform read back after the last.
 */
export async function importLobbyNightly(
  threadFile: string,
  runs: readonly { lobby: string; thread: string }[],
  /** What happens on the platform between runs (before run `index`); the client the runs use. */
  around: { beforeRun?: (index: number, f: ImportFixture) => Promise<void>; clientOf?: (f: ImportFixture) => ChatportClient } = {},
): Promise<{ f: ImportFixture; reports: RunReport[]; platform: PlatformState; config: PipelineConfig; stateDir: string }> {
  const { f, dir } = await fixtureWithExport();
  const reports: RunReport[] = [];
  const stateDir = join(f.dir, 'state');
  // Resolved for each run, as each run of the job reads the pipeline anew (a run notes things in its config).
  const resolve = async () => (await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n`)).config;
  const client = around.clientOf?.(f) ?? f.client;
  for (const run of runs) {
    await around.beforeRun?.(reports.length, f);
    await writeFile(join(dir, LOBBY_FILE), run.lobby);
    await writeFile(join(dir, threadFile), run.thread);
    reports.push(await runImport({ config: await resolve(), stateDir, verify: {} }, { client }));
  }
  return { f, reports, platform: await readPlatform(f.client), config: await resolve(), stateDir };
}

/** A file's text with another `exportedAt` (when DiscordChatExporter wrote it). */
export const exportedAt = (text: string, time: string): string => JSON.stringify({ ...(JSON.parse(text) as object), exportedAt: time });

/** importFiles for a test file's tests, each sandbox closed after them. */
export function importFilesClosedAfterAll(): typeof importFiles {
  const fixtures: ImportFixture[] = [];
  afterAll(async () => {
    for (const f of fixtures) await f.close();
  });
  return async (...args) => {
    const imported = await importFiles(...args);
    fixtures.push(imported.f);
    return imported;
  };
}
