import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMattermostExport } from '../../fixtures/mattermost/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { writePipeline } from '../import/support.js';

describe('a Mattermost JSONL line that cannot be read', () => {
  it('is rejected at its file (the JSONL named once) and its 1-based line, and the other lines are read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-mattermost-lines-'));
    const file = join(dir, 'e1.jsonl');
    await generateMattermostExport({ out: file, seed: 3, messages: 20 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    await writeFile(file, [...lines.slice(0, 10), '{"type": "post", "post": ', ...lines.slice(10)].join('\n') + '\n');
    const { config } = await writePipeline(dir, `name: mattermost\nmattermost:\n  export: ${file}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), mode: 'dry-run' });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { file: string; line?: number; index: number; reasons: Array<{ field: string }> });
    expect(rejects).toEqual([expect.objectContaining({ file, line: 11, index: 10, reasons: [expect.objectContaining({ field: '(line)' })] })]);
    expect(report.totals.balanced).toBe(true);
  });
});
