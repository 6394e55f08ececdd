import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { writePipeline } from '../import/support.js';

/** A byte that is not UTF-8 in a Slack day file or a Discord channel file (dry runs of the bundled samples). */
const SAMPLES = join(import.meta.dirname, '../../fixtures');

interface RejectLine {
  file: string;
  index: number;
  reasons: Array<{ field: string; message: string }>;
  record: Record<string, unknown>;
}

async function dryRun(kind: 'slack' | 'discord', folder: string) {
  const dir = await mkdtemp(join(tmpdir(), `chatport-unreadable-${kind}-`));
  const { config } = await writePipeline(dir, `name: ${kind}\n${kind}:\n  export: ${folder}\n`);
  const report = await runImport({ config, stateDir: join(dir, 'state'), mode: 'dry-run' });
  const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as RejectLine);
  return { report, rejects };
}

/** A copy of the sample with the byte 0xE9 (latin1 é) put right after the last `needle` of `file`. */
async function withLatin1Byte(sample: string, file: string, needle: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'chatport-unreadable-'));
  await cp(sample, folder, { recursive: true });
  const bytes = await readFile(join(folder, file));
  const found = bytes.lastIndexOf(needle);
  if (found < 0) throw new Error(`${needle} is not in ${file}`);
  const at = found + Buffer.byteLength(needle);
  await writeFile(join(folder, file), Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at)]));
  return folder;
}

describe('a byte that is not UTF-8 in a chat export', () => {
  it.each([
    ['slack', 'slack/sample', 'general/2020-09-15.json', 'text', '"text": "'],
    ['discord', 'discord/sample', 'Generated Guild - Text Channels - lobby.json', 'content', '"content":"'],
  ] as const)('%s: rejects the message holding it, naming the field and the byte, and reads every other one as before', async (kind, sample, file, field, needle) => {
    const whole = await dryRun(kind, join(SAMPLES, sample));
    const folder = await withLatin1Byte(join(SAMPLES, sample), file, needle);
    const damaged = await dryRun(kind, folder);
    const added = damaged.rejects.filter((r) => !whole.rejects.some((w) => w.file.endsWith(r.file.slice(folder.length)) && w.index === r.index));
    expect(added).toHaveLength(1);
    expect(added[0]!.file).toBe(join(folder, file));
    expect(added[0]!.reasons[0]).toMatchObject({ field, message: expect.stringContaining(`invalid UTF-8 in field "${field}": byte 0xE9 at character 1`) });
    // The rejects file shows the byte as U+FFFD, never as the mark.
    expect(JSON.stringify(added[0]!.record)).toContain('\uFFFD');
    expect(damaged.report.stages.messages!.read).toBe(whole.report.stages.messages!.read);
    expect(damaged.report.stages.messages!.rejected).toBe(whole.report.stages.messages!.rejected + 1);
    expect(damaged.report.totals.balanced).toBe(true);
  });
});
