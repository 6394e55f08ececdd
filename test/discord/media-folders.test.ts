import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { writePipeline } from '../import/support.js';

/**
 * An export made with DiscordChatExporter's --media: each channel file's attachments, avatars and emoji are
 * downloaded into a folder beside it, `<file>_Files/`. A person's uploaded .json file lands there too.
 */
const SAMPLE = join(import.meta.dirname, '../../fixtures/discord/sample');

async function dryRun(folder: string) {
  const dir = await mkdtemp(join(tmpdir(), 'chatport-discord-media-'));
  const { config } = await writePipeline(dir, `name: discord\ndiscord:\n  export: ${folder}\n`);
  return runImport({ config, stateDir: join(dir, 'state'), mode: 'dry-run' });
}

describe('a Discord export made with --media', () => {
  it('does not read the media folders: an uploaded .json attachment there is no channel file and no reject', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'chatport-discord-media-export-'));
    await cp(SAMPLE, folder, { recursive: true });
    const media = join(folder, 'Generated Guild - Text Channels - lobby.json_Files');
    await mkdir(media);
    await writeFile(join(media, 'settings-5F3A1.json'), JSON.stringify({ theme: 'dark' }));
    await writeFile(join(media, 'avatar-9C2D0.png'), 'png');
    const whole = await dryRun(SAMPLE);
    const withMedia = await dryRun(folder);
    expect(withMedia.stages.messages).toMatchObject({ read: whole.stages.messages!.read, rejected: 0 });
    expect(withMedia.totals).toMatchObject({ rejected: 0, balanced: true });
  });
});
