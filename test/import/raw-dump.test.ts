import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPipelineFile } from '../../src/cli/pipeline-file.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { writeRawDump } from '../../fixtures/raw-dump/generate.js';
import { all, startImportFixture, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const PIPELINE = join(import.meta.dirname, '../../pipelines/raw-dump.yaml');

/** Root id → its replies' ids, in the dump's order (read with plain JSON.parse). */
function dumpReplies(ndjson: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of ndjson.trim().split('\n')) {
    const m = JSON.parse(line) as { _id: string; tmid?: string };
    if (m.tmid === undefined) continue;
    out.set(m.tmid, [...(out.get(m.tmid) ?? []), m._id]);
  }
  return out;
}

describe('pipelines/raw-dump.yaml: another team chat\'s admin dump, imported whole', () => {
  it('every user, room by type, and message goes in with no preprocessing, and verification says exact', async () => {
    const folder = join(f.dir, 'dump');
    const dump = writeRawDump(folder, { messages: 400 }, 11);
    const config = await loadPipelineFile(PIPELINE, { RAW_DUMP: folder }, createSilentLogger());
    const report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: { sample: 50 } }, { client: f.client });

    expect(report.stages.users).toMatchObject({ read: dump.facts.users, imported: dump.facts.users, rejected: 0, skipped: 0 });
    expect(report.stages.channels).toMatchObject({ read: 5, imported: 5, rejected: 0 });
    expect(report.stages.messages).toMatchObject({ read: dump.facts.messages, imported: dump.facts.messages, rejected: 0, skipped: 0 });
    expect(report.verification?.status).toBe('exact');

    const users = (await all(f.client.users.list())).filter((u) => u.properties?.chatportPipeline === 'raw-dump');
    const names = new Map(users.map((u) => [u.properties!.chatportKey, u.name]));
    // Ana and ana fold to the same name: the later one is suffixed. Aña keeps its letter; symbols become "-".
    expect([names.get('U100'), names.get('U101'), names.get('U102'), names.get('U103')]).toEqual(['ana', 'ana-2', 'aña', 'bo-lin']);
    expect(users.find((u) => u.properties!.chatportKey === 'U110')!.properties).toMatchObject({ deleted: true, bot: false });

    const channels = (await all(f.client.channels.list())).filter((c) => c.properties?.chatportPipeline === 'raw-dump');
    const types = channels.map((c) => c.type).sort();
    expect(types).toEqual(['DIRECT', 'DIRECT', 'PRIVATE', 'PUBLIC', 'PUBLIC']);
    expect(channels.filter((c) => c.type === 'PUBLIC').map((c) => c.name).sort()).toEqual(['town-square', 'town-square-2']);

    const messages = await all(f.client.messages.list({ pageSize: 100 }));
    const system = messages.filter((m) => m.type === 'SYSTEM_TEXT');
    expect(system).toHaveLength(dump.facts.system);
    expect(system.every((m) => m.user === undefined)).toBe(true);
    // Every reply is in its root's thread, in the dump's order.
    expect(report.stages.messages).toMatchObject({ replies: dump.facts.replies });
    expect(report.stages.messages!.orphans).toBeUndefined();
    const replies = messages.filter((m) => m.nestedLevel === 1);
    expect(replies).toHaveLength(dump.facts.replies);
    const roots = messages.filter((m) => (m.repliesCount ?? 0) > 0);
    expect(roots.reduce((n, m) => n + m.repliesCount!, 0)).toBe(dump.facts.replies);
    const sources = dumpReplies(dump.messages);
    for (const root of roots) {
      const thread = await all(f.client.threads.messages(replyThreadIdOf(root)!));
      expect(thread.map((m) => m.properties?.chatportKey)).toEqual(sources.get(String(root.properties?.chatportKey)));
    }
  });
});
