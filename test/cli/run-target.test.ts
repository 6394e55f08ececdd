import { describe, expect, it } from 'vitest';
import { runTarget } from '../../src/cli/run-target.js';
import type { CliContext } from '../../src/cli/context.js';

// `chatport report|runs show <pipeline.yaml> --state <dir> [run]`, as `import` and `status` take them: the
// pipeline file names the pipeline, --state its folder. Before, the file's path was taken for a run id
// ('no run "p.yaml" in st/runs', exit 66), and with a run after it the line was refused (64).
describe('runTarget', () => {
  const ctx = {} as CliContext;
  it('a pipeline file beside --state is the pipeline, not a run', async () => {
    expect(await runTarget(['pipelines/p.yaml'], 'st', ctx)).toEqual({ stateDir: 'st' });
    expect(await runTarget(['p.yml', '01K'], 'st', ctx)).toEqual({ stateDir: 'st', runId: '01K' });
    expect(await runTarget(['01K'], 'st', ctx)).toEqual({ stateDir: 'st', runId: '01K' });
    await expect(runTarget(['01K', '01J'], 'st', ctx)).rejects.toThrow(/with --state, name at most a run/);
  });
});
