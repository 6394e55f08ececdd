/**
 * Kubernetes reads at most 4,096 bytes of the termination log: a summary past that is shown cut, no longer
 * JSON for a monitor. Every summary written must be one JSON line within those bytes, however long its
 * message or its lists, and in whatever script its paths are.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeTerminationLog } from '../../src/cli/termination-log.js';

const dir = mkdtempSync(join(tmpdir(), 'termination-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function written(summary: Record<string, unknown>): Promise<string> {
  const path = join(dir, 'termination-log');
  writeFileSync(path, '');
  await writeTerminationLog({ CHATPORT_TERMINATION_LOG: path }, summary);
  return readFileSync(path, 'utf8');
}

const failure = { command: 'export', status: 'failed', exitCode: 73, runId: '01KTESTRUN', date: '2026-11-21' };

it.each([
  ['a message of non-ASCII text with the rejects left in the store under a long prefix', {
    ...failure,
    error: { code: 'OUTPUT_WRITE_FAILED', message: `cannot write ${'倉庫'.repeat(700)}` },
    rejectsInStore: Array.from({ length: 5 }, (_, i) => `s3://bucket/${'長い'.repeat(100)}/_rejects/_staging/messages/dt=2026-11-2${i}/rejects-01KTESTRUN-0a1b2c3d.ndjson`),
  }],
  ['a long cleanup note beside a long message', { ...failure, error: { code: 'OUTPUT_UNAVAILABLE', message: 'm'.repeat(3000) }, cleanup: `the store did not answer: ${'left s3://bucket/prefix/messages/dt=2026-11-21/part-x.parquet; '.repeat(80)}` }],
])('%s: one JSON line within 4,096 bytes, its status, exit code and error code kept', async (_name, summary) => {
  const text = await written(summary);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
  expect(text.endsWith('\n') && !text.slice(0, -1).includes('\n')).toBe(true);
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(parsed).toMatchObject({ command: 'export', status: 'failed', exitCode: summary.exitCode, runId: '01KTESTRUN', error: { code: summary.error.code } });
  expect((parsed.error as { message: string }).message.startsWith(summary.error.message.slice(0, 100))).toBe(true);
});

it('a summary within the limit is written whole', async () => {
  const summary = { ...failure, error: { code: 'X', message: 'short' }, published: ['users'] };
  expect(JSON.parse(await written(summary))).toEqual(summary);
});
