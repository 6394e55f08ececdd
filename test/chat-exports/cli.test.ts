import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDiscordExport } from '../../fixtures/discord/generator/index.js';
import { generateMattermostExport } from '../../fixtures/mattermost/generator/index.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { readPlatform } from '../slack-migration/support.js';

/** `chatport migrate discord|mattermost` and `chatport validate` as a user runs them: zips, damage, a kill. */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture({ jobs: { minDurationMs: 20 } });
});
afterAll(() => f?.close());

describe('chatport migrate discord', () => {
  it('migrates a zipped export; killed mid-messages and run again, it ends as a clean run would, and verifies exact', async () => {
    const zip = join(f.dir, 'discord.zip');
    await generateDiscordExport({ out: zip, seed: 4, messages: 900, partition: 250 });
    const state = join(f.dir, 'discord-state');
    const killed = await chatportProcess(['migrate', 'discord', zip, '--state', state, '--json'], f.env, async () => countEvents(await journalEvents(state), 'chunk-done', 'messages') >= 2);
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await chatportProcess(['migrate', 'discord', zip, '--state', state, '--json'], f.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout) as RunReport;
    expect(report).toMatchObject({ status: 'succeeded', attempt: 2, verification: { status: 'exact' } });
    const platform = await readPlatform(f.client);
    const ids = platform.channels.flatMap((c) => [...c.messages, ...[...c.threads.values()].flatMap((t) => t.replies)]).map((m) => String(m.source.id));
    // Every message once (a split message once per part, each part its own record).
    expect(ids.length).toBe(report.stages.messages!.imported);
    expect(new Set(ids).size).toBe(ids.length - platform.channels.flatMap((c) => c.messages).filter((m) => ((m.source.part as { index: number } | undefined)?.index ?? 1) > 1).length);
    const verified = await chatportProcess(['verify', 'pipelines/discord.yaml', '--state', state], { ...f.env, DISCORD_EXPORT: zip });
    expect(verified.code, verified.stdout).toBe(0);
  }, 120_000);

  it('a missing export exits 66 before anything is sent', async () => {
    const ran = await chatportProcess(['migrate', 'discord', join(f.dir, 'nothing-here'), '--state', join(f.dir, 'none')], f.env);
    expect(ran.code).toBe(ExitCode.INPUT_MISSING);
    expect(ran.stderr).toContain('Discord export');
  });
});

describe('chatport migrate mattermost', () => {
  it('takes a zip with its attachments; a line that is not JSON and one of an unknown type are rejected with file and line, the rest goes in (exit 2)', async () => {
    // A platform of its own: the Discord migration above took user names this export has too.
    const own = await startImportFixture();
    const zip = join(own.dir, 'mm.zip');
    await generateMattermostExport({ out: zip, seed: 6, messages: 300, broken: true });
    const state = join(own.dir, 'mm-state');
    const ran = await chatportProcess(['migrate', 'mattermost', zip, '--state', state, '--json'], own.env).finally(() => own.close());
    expect(ran.code, ran.stderr).toBe(ExitCode.COMPLETED_WITH_REJECTS);
    const report = JSON.parse(ran.stdout) as RunReport;
    expect(report.stages.messages).toMatchObject({ read: 302, rejected: 2, duplicates: 1, imported: 299 });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { file: string; index: number; reasons: Array<{ field: string; message: string }> });
    expect(rejects.map((r) => [r.file, r.reasons[0]!.field])).toEqual([
      [`${zip}/export.jsonl`, '(line)'],
      [`${zip}/export.jsonl`, 'type'],
    ]);
    expect(rejects[1]!.reasons[0]!.message).toContain('"wiki_page"');
    expect(rejects[0]!.index).toBeLessThan(rejects[1]!.index);
  }, 120_000);

  it('validate pipelines/mattermost.yaml counts the bundled sample offline; system posts skipped by option', async () => {
    const ran = await chatportProcess(['validate', 'pipelines/mattermost.yaml', '--json'], { MATTERMOST_SYSTEM_MESSAGES: 'skip' });
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as RunReport;
    const sample = (await readFile(join(import.meta.dirname, '../../fixtures/mattermost/sample/export.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; post?: { type?: string } });
    const systemPosts = sample.filter((l) => l.post?.type?.startsWith('system_')).length;
    expect(systemPosts).toBeGreaterThan(0);
    expect(report.stages.messages).toMatchObject({ skipped: systemPosts, rejected: 0 });
    expect(report.totals.balanced).toBe(true);
  });
});
