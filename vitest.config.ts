import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start servers on port 0; running files in parallel is safe and keeps CI short.
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs: a single worker on a 2-core machine, where most
    // files wait on HTTP and child processes, so two files at a time shorten CI.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
