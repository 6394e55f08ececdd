import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePipelineConfig, type PipelineConfig } from '../../src/config/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { readStageRecords } from '../../src/pipeline/import/read-stage.js';
import { CHANNEL_KEY_PROPERTY, idempotencyKeyFor, type Processed } from '../../src/transform/index.js';
import { all } from '../import/support.js';
import { useTempDir } from '../slack/helpers/temp.js';

/** The Slack stages of a pipeline, read offline from the bundled sample (no platform needed). */
const SAMPLE = join(import.meta.dirname, '..', '..', 'fixtures', 'slack', 'sample');
const TEAM = 'T0GENERATED';

function slackConfig(extra = ''): PipelineConfig {
  const result = resolvePipelineConfig(`name: slack-test\nslack:\n  export: ${SAMPLE}\n${extra}`, { path: join(SAMPLE, '..', 'p.yaml') });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

const stageOf = (config: PipelineConfig, name: string) => config.stages.find((s) => s.stage === name)!;
const accepted = (records: Processed[]) => records.filter((r): r is Extract<Processed, { kind: 'accepted' }> => r.kind === 'accepted');

describe('the slack block of a pipeline file', () => {
  it('stands for the four stages, in order, with the top-level options', () => {
    const config = slackConfig('options: { chunkRecords: 250 }\n');
    expect(config.stages.map((s) => s.stage)).toEqual(['users', 'channels', 'members', 'messages']);
    expect(config.stages.every((s) => s.slack?.export === SAMPLE && s.options.chunkRecords === 250)).toBe(true);
    expect(config.slack).toEqual({ export: SAMPLE, systemMessages: 'import' });
  });

  it('takes a relative export from the file\'s folder, and refuses stages beside it or an empty export, at their lines', () => {
    const relative = resolvePipelineConfig('name: s\nslack: { export: exports/x.zip, systemMessages: skip }\n', { path: '/data/pipes/p.yaml' });
    expect(relative.ok && relative.config.slack).toEqual({ export: '/data/pipes/exports/x.zip', systemMessages: 'skip' });
    const both = resolvePipelineConfig('name: s\nslack:\n  export: ${SLACK_EXPORT}\nstages: {}\n', { path: '/p.yaml', missingEnv: 'warn' });
    expect(both.ok).toBe(false);
    expect(!both.ok && both.errors).toEqual([
      expect.objectContaining({ path: 'stages', line: 4 }),
      expect.objectContaining({ path: 'slack.export', line: 3, message: expect.stringContaining('SLACK_EXPORT') }),
    ]);
    const wrong = resolvePipelineConfig('name: s\nslack: { export: x, systemMessages: maybe }\n', { path: '/p.yaml' });
    expect(!wrong.ok && wrong.errors.map((e) => e.path)).toEqual(['slack.systemMessages']);
  });
});

describe('readStageRecords for Slack stages', () => {
  it('gives channels their source key in chatportKey and every item the pipeline\'s idempotency key', async () => {
    const config = slackConfig();
    const channels = accepted(await all(readStageRecords(config, stageOf(config, 'channels'), {})));
    expect(channels).toHaveLength(11);
    for (const c of channels) {
      expect(c.sourceKey).toMatch(new RegExp(`^${TEAM}/[CGD]`));
      expect((c.item.properties as Record<string, unknown>)[CHANNEL_KEY_PROPERTY]).toBe(c.sourceKey);
      expect(c.item.idempotencyKey).toBe(idempotencyKeyFor('slack-test', 'channels', c.sourceKey));
    }
    const users = accepted(await all(readStageRecords(config, stageOf(config, 'users'), {})));
    expect(users.map((u) => u.position.file)).toContain(`${SAMPLE}/users.json`);
    for (const u of users) expect(u.item.idempotencyKey).toBe(idempotencyKeyFor('slack-test', 'users', u.sourceKey));
  });

  it('resolves members and messages through the channel lookup, and rejects those whose channel has no id', async () => {
    const config = slackConfig();
    const ids = new Map([[`${TEAM}/C0001`, 41], [`${TEAM}/D0001`, 42]]);
    const members = await all(readStageRecords(config, stageOf(config, 'members'), { channelIds: ids }));
    const general = accepted(members).filter((m) => m.channelKey === `${TEAM}/C0001`);
    expect(general.length).toBeGreaterThan(10);
    expect(general.every((m) => m.channelId === 41 && m.sourceKey.startsWith(`${TEAM}/C0001/U`))).toBe(true);
    const unresolved = members.filter((m) => m.kind === 'rejected');
    expect(unresolved.length).toBe(members.length - general.length);
    expect(unresolved[0]).toMatchObject({ kind: 'rejected', reasons: [{ field: 'channelId', message: expect.stringMatching(/^channel T0GENERATED\/C0002 has no platform id/) }] });

    const messages = await all(readStageRecords(config, stageOf(config, 'messages'), { channelIds: ids }));
    const ok = accepted(messages);
    expect(new Set(ok.map((m) => m.item.channelId))).toEqual(new Set([41, 42]));
    for (const m of ok) expect(m.item.idempotencyKey).toBe(idempotencyKeyFor('slack-test', 'messages', m.sourceKey));
    expect(ok[0]!.position.file).toMatch(new RegExp(`^${SAMPLE}/general/\\d{4}-\\d\\d-\\d\\d\\.json$`));
    expect(messages).toHaveLength(305);
  });

  it('reads the same records on every pass (a resumed run rebuilds the same chunks)', async () => {
    const first = await all(readStageRecords(slackConfig(), stageOf(slackConfig(), 'messages'), { channelIds: () => 7 }));
    const second = await all(readStageRecords(slackConfig(), stageOf(slackConfig(), 'messages'), { channelIds: () => 7 }));
    expect(second).toEqual(first);
  });

  it('runs as a dry run with every record pending and the report balanced', async () => {
    const report = await runImport({ config: slackConfig(), mode: 'dry-run', stateDir: await useTempDir('chatport-slack-dry-') });
    expect(report.totals).toEqual({ read: 417, imported: 0, updated: 0, duplicates: 0, rejected: 0, refused: 0, skipped: 0, changed: 0, pending: 417, balanced: true });
  });
});
