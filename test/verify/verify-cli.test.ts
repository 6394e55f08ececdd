import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeForReport, resolvePipelineConfig, runImport } from '../../src/index.js';
import { all, startImportFixture, runCli, chatportEnv, type ImportFixture } from '../import/support.js';

const EXAMPLE = join(import.meta.dirname, '../../pipelines/csv-example.yaml');

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const cli = (args: string[]) => runCli(args, chatportEnv(f));

describe('chatport verify and import --verify', () => {
  // Eight CLI processes one after another (each loads the CLI: about a second of CPU): 26 s alone on a loaded 2-core machine.
  it('import verifies by default (the rejected rows are not expected), verify says exact, then names a message deleted on the platform after its import, with the run and key, exit 2', { timeout: 120_000 }, async () => {
    const state = join(f.dir, 'state');
    const imported = await cli(['import', EXAMPLE, '--state', state]);
    expect(imported.code).toBe(2);
    expect(imported.stdout).toMatch(/verification: exact/);
    expect(imported.stdout).toMatch(/messages\s+5 of 5 verified on the platform/);

    const exact = await cli(['verify', EXAMPLE, '--state', state, '--sample', '3']);
    expect(exact.code).toBe(0);
    expect(exact.stdout).toMatch(/3 message\(s\) compared in full/);

    const general = (await all(f.client.channels.list())).find((c) => c.name === 'crm-general')!;
    const first = (await all(f.client.channels.messages(general.id)))[0]!;
    const removed = await f.client.send({ operation: 'delete a message', method: 'DELETE', path: `/messages/${first.id}`, retry: 'never' });
    await removed.body.dump();
    const found = await cli(['verify', EXAMPLE, '--state', state]);
    // Only a message deleted after its import differs: no rerun brings it back (its key is taken), so alert, don't retry.
    expect(found.code).toBe(2);
    expect(found.stdout).toMatch(/missing\s+messages \S+ \(.*messages\.csv:2\): message \S+ .* is not in channel \S+: deleted on the platform after run \S+ imported it \(idempotency key cp1-[0-9a-f]{32}\)/);
    const json = JSON.parse((await cli(['verify', EXAMPLE, '--state', state, '--json'])).stdout) as { status: string; counts: { missing: number }; differences: Array<{ position: { line: number } }> };
    expect(json).toMatchObject({ status: 'differences', counts: { missing: 1 }, deletedSinceImport: 1 });
    expect(json.differences[0]!.position.line).toBe(2);
    const runDir = (JSON.parse(await readFile(join(state, 'journal.ndjson'), 'utf8').then((t) => t.trim().split('\n')[0]!)) as { runId: string }).runId;
    const saved = await readFile(join(state, 'runs', runDir, 'verify-differences.ndjson'), 'utf8');
    expect(saved.trim().split('\n')).toHaveLength(1);
    // A second import after the deletion: the run itself sends nothing new, and its verification exits 2.
    const again = await cli(['import', EXAMPLE, '--state', state]);
    expect(again.code).toBe(2);
    // status says how that run ended: its stages completed with rejects, and the platform differs by the deleted message (exit 2),
    // which the run sent again (an insert stage sends every record) and counts skipped, not imported, once verification found it.
    expect((await cli(['status', EXAMPLE, '--state', state])).stdout).toMatch(/^last report: completed-with-rejects, verification differences \(1 missing\), 15 imported, 9 rejected, exit 2 /m);
    // The library resolves with that report; exitCodeForReport says what the CLI exits with.
    const config = resolvePipelineConfig(await readFile(EXAMPLE, 'utf8'), { env: {}, path: EXAMPLE });
    if (!config.ok) throw new Error('csv-example does not resolve');
    const report = await runImport({ config: config.config, stateDir: state, verify: {} }, { client: f.client });
    expect([report.status, report.verification?.status, exitCodeForReport(report)]).toEqual(['completed-with-rejects', 'differences', 2]);
    expect((await cli(['import', EXAMPLE, '--state', state, '--no-verify'])).code).toBe(2);
  });

  it('a message corrected in the source to a body of the same length: the import says so in its verification (exit 65), by the content it reads by default', async () => {
    // A platform of its own: the test above deleted one of this pipeline's messages.
    const g = await startImportFixture();
    const cli = (args: string[]) => runCli(args, chatportEnv(g));
    const dir = join(g.dir, 'same-length');
    await cp(join(import.meta.dirname, '../../fixtures/csv-example'), join(dir, 'fixtures/csv-example'), { recursive: true });
    await cp(EXAMPLE, join(dir, 'pipelines/csv-example.yaml'));
    const pipeline = join(dir, 'pipelines/csv-example.yaml');
    const messages = join(dir, 'fixtures/csv-example/messages.csv');
    const state = join(dir, 'state');
    expect((await cli(['import', pipeline, '--state', state])).code).toBe(2);
    await writeFile(messages, (await readFile(messages, 'utf8')).replace('Hello everyone', 'Hello everybo'.padEnd(14, 'y')));
    const again = await cli(['import', pipeline, '--state', state]);
    expect(again.code).toBe(65);
    expect(again.stdout).toMatch(/messages\s+4 of 5 verified on the platform; 1 changed/);
    const json = JSON.parse((await cli(['verify', pipeline, '--state', state, '--json'])).stdout) as { counts: { changed: number }; differences: Array<{ kind: string; sourceKey: string; position: { line: number } }> };
    expect(json.counts.changed).toBe(1);
    expect(json.differences[0]).toMatchObject({ kind: 'changed', sourceKey: 'm1', position: { line: 2 } });
    // Only the full read sees it: the export's author, type and length agree.
    expect((await cli(['verify', pipeline, '--state', state, '--sample', '0'])).code).toBe(0);
    await g.close();
    // Four CLI processes, each compiling the sources through tsx: over 30 s on a loaded 2-core machine.
  }, 120_000);
});
