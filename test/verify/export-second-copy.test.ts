/**
 * A message of an export (Slack) sent twice carries its `source.id`, not `chatportKey`: the copy must be
 * named a second copy of the message it repeats, as a `thread:` pipeline's is (tamper-places.test.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { caseDir, generateSlackCase, writeSlackCase } from '../slack-migration/slack-diff.js';
import { byHand, type ByHand } from './by-hand.js';

let f: ImportFixture;
let hand: ByHand;
beforeAll(async () => {
  f = await startImportFixture();
  hand = await byHand(f.sandbox);
});
afterAll(() => f.close());

describe('a message of an export sent twice', () => {
  it('the copy is named a second copy of it, by its source.id', async () => {
    const dir = caseDir(f.dir, 1);
    const { config } = await writeSlackCase(dir, generateSlackCase(1), 'export-second-copy', writePipeline);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    const rejectsFiles = report.rejectsFile === undefined ? [] : [report.rejectsFile];
    // A channel's last message, no thread's: the copy is posted next to it (only a region read in full names copies).
    let plain: Message | undefined;
    for (const channel of await all(f.client.channels.list())) {
      if ((channel.properties as { chatportPipeline?: string } | undefined)?.chatportPipeline !== config.id || plain) continue;
      const last = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).at(-1);
      if (last && (last.properties as { source?: { thread?: unknown } }).source?.thread === undefined && last.user) plain = last;
    }
    const copy = await hand.call('POST', `/channels/${String(plain!.channelId)}/messages`, { type: plain!.type, body: plain!.body, user: { username: plain!.user!.name }, properties: plain!.properties });
    const { differences } = await runVerify({ config, rejectsFiles, sample: 0 }, { client: f.client });
    expect(differences.map((d) => [d.kind, d.platformId])).toEqual([['extra', String(copy.id)]]);
    expect(differences[0]!.message).toMatch(new RegExp(`^message ${String(copy.id)} in channel \\S+ is a second copy of message \\S+ \\(.+\\), held as message ${String(plain!.id)}$`));
  }, 120_000);
});
