import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { writePipeline } from '../import/support.js';

/** A Discord export with a file cut short and a file that is not DiscordChatExporter's (dry runs). */
const SAMPLE = join(import.meta.dirname, '../../fixtures/discord/sample');

async function dryRun(folder: string) {
  const dir = await mkdtemp(join(tmpdir(), 'chatport-discord-'));
  const { config } = await writePipeline(dir, `name: discord\ndiscord:\n  export: ${folder}\n`);
  const report = await runImport({ config, stateDir: join(dir, 'state'), mode: 'dry-run' });
  const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { file: string; index: number; reasons: Array<{ field: string; message: string }> });
  return { report, rejects };
}

describe('a damaged Discord export', () => {
  it('keeps the messages before a cut and rejects the rest of the file as one record, naming where it broke', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'chatport-discord-cut-'));
    await cp(SAMPLE, folder, { recursive: true });
    const file = 'Generated Guild - Text Channels - lobby.json';
    const text = await readFile(join(folder, file), 'utf8');
    const messages = (JSON.parse(text) as { messages: unknown[] }).messages.length;
    // Cut in the middle of the 6th message.
    const lines = text.split('\n');
    const sixth = lines.findIndex((l) => l.startsWith('    {')) + 5;
    await writeFile(join(folder, file), [...lines.slice(0, sixth), lines[sixth]!.slice(0, 40)].join('\n'));
    const whole = await dryRun(SAMPLE);
    const cut = await dryRun(folder);
    expect(cut.rejects).toEqual([expect.objectContaining({ file: `${folder}/${file}`, index: 5, reasons: [expect.objectContaining({ field: '(file)' })] })]);
    expect(cut.rejects[0]!.reasons[0]!.message).toContain('the messages cannot be read after message 4');
    // The five messages before the cut are read; the rest of the file is one rejected record.
    expect(cut.report.stages.messages!.read).toBe(whole.report.stages.messages!.read - messages + 5 + 1);
    expect(cut.report.totals.balanced).toBe(true);
  });

  it('rejects a file that is not a DiscordChatExporter channel file, and reads the others', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'chatport-discord-foreign-'));
    await cp(SAMPLE, folder, { recursive: true });
    await writeFile(join(folder, 'notes.json'), JSON.stringify({ title: 'not an export' }));
    const { report, rejects } = await dryRun(folder);
    expect(rejects).toEqual([expect.objectContaining({ file: `${folder}/notes.json`, reasons: [expect.objectContaining({ message: expect.stringContaining('no guild and channel objects') })] })]);
    expect(report.stages.messages!.rejected).toBe(1);
  });
});
