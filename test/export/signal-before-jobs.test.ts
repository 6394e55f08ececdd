import { afterAll, beforeAll, expect, it } from 'vitest';
import { runExport } from '../../src/pipeline/export/index.js';
import { createLocalDestination, type Destination } from '../../src/sinks/index.js';
import { InterruptedError } from '../../src/shared/errors.js';
import { listFiles } from './read-output.js';
import { startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
beforeAll(async () => {
  bed = await startExportBed();
});
afterAll(() => bed.close());

// A pod's SIGTERM that lands while the run first checks its output (a killed run's publication, the
// formats published): the run stops there, exit 143, and starts no export job. Before, the stop was missed
// by the job starts (their listener came after it), so the run started the jobs and waited for them — up
// to --job-timeout, or minutes of retries under a 429 — past the pod's grace period, to be SIGKILLed.
it('a signal while the output is checked starts no export job', async () => {
  const root = bed.tempDir();
  const stop = new AbortController();
  const local = createLocalDestination(root);
  const destination = new Proxy(local, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        stop.abort(new InterruptedError('SIGTERM'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Destination;
  const started: string[] = [];
  const client = {
    ...bed.client,
    serverInfo: bed.client.serverInfo,
    exports: {
      ...bed.client.exports,
      start: (...args: Parameters<typeof bed.client.exports.start>) => {
        started.push(args[0]);
        return bed.client.exports.start(...args);
      },
    },
  };
  const error = await runExport(
    { datasets: ['messages', 'users'], to: root, format: 'ndjson', date: '2026-11-21', job: { pollIntervalMs: 5 }, signal: stop.signal },
    { client, destination },
  ).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InterruptedError);
  expect(started).toEqual([]);
  expect(listFiles(root)).toEqual([]);
});
