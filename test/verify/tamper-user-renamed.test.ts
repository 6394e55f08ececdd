/**
 * A user renamed on the platform after the import (by an admin, or another tool): the user chatport made
 * for the source key is still there, its memberships and messages with it, under another name. Verification
 * must name that one change on the users stage, not call the user missing, another one extra, and each of
 * its memberships and messages missing, extra or changed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, generateCsvs, generatedPipeline, writeCsvs, writePipeline } from '../import/support.js';
import { sandboxAndHand } from './by-hand.js';

const t = sandboxAndHand();

describe('a user renamed on the platform', () => {
  it('is one changed user (name); its memberships and messages verify, content read in full too', async () => {
    const dir = join(t.f.dir, 'renamed');
    await writeCsvs(dir, generateCsvs({ users: 3, channels: 2, messages: 12 }, 'rn-'));
    const { config } = await writePipeline(dir, generatedPipeline('renamed'), t.f.env);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: t.f.client });
    expect(report.verification?.status).toBe('exact');
    const user = (await all(t.f.client.users.list({ name: 'rn-user1' })))[0]!;
    await t.hand.mergePatch(`/users/${String(user.id)}`, { name: 'rn-renamed' });

    const result = await runVerify({ config, sample: 12 }, { client: t.f.client });
    expect(result.differences.map((d) => [d.kind, d.stage, d.sourceKey, d.platformId, d.fields])).toEqual([['changed', 'users', 'u1', String(user.id), ['name']]]);
    expect(result.differences[0]!.message).toBe('user "rn-user1" is named "rn-renamed" on the platform');
    expect(result.summary.stages).toMatchObject({ members: { expected: 6, verified: 6 }, messages: { expected: 12, verified: 12 } });
    expect(result.summary.contentChecked).toBe(12);
  });
});
