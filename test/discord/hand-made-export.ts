import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
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
