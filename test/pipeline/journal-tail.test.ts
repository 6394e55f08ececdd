import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestRunEnded } from '../../src/pipeline/state/journal-tail.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatport-journal-tail-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const ended = async (text: string) => {
  const file = join(dir, `j${Math.random()}.ndjson`);
  await writeFile(file, text);
  return latestRunEnded(file);
};

describe('whether the latest run ended, from the journal\'s last whole line', () => {
  const started = '{"t":"run-started","runId":"r1"}\n';
  const long = `{"t":"stage-input-read","files":"${'x'.repeat(200_000)}"}\n`;
  it('reads none, ended and unfinished, a torn last line not counted, lines longer than the first read', async () => {
    expect(await latestRunEnded(join(dir, 'missing.ndjson'))).toBe('none');
    expect(await ended('')).toBe('none');
    expect(await ended('{"t":"run-sta')).toBe('none');
    expect(await ended(started)).toBe('unfinished');
    expect(await ended(`${started}{"t":"run-ended","runId":"r1"}\n`)).toBe('ended');
    expect(await ended(`${started}{"t":"run-ended","runId":"r1"}\n{"t":"run-sta`)).toBe('ended');
    expect(await ended(`${started}${long}`)).toBe('unfinished');
    expect(await ended(`${long}{"t":"run-ended","runId":"r1"}\n${'y'.repeat(100_000)}`)).toBe('ended');
    expect(await ended(`{"t":"run-ended"}\n${long}`)).toBe('unfinished');
  });
});
