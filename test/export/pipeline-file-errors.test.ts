/** `chatport export --pipeline` with a file a new user gets wrong: the exit code and message README promises. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runCli } from './cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chatport-export-pipeline-'));

it('a pipeline file that does not exist is missing input (66), as for import, naming the file', async () => {
  const missing = join(dir, 'nightly.yaml');
  const result = await runCli(['export', '--pipeline', missing], {});
  expect(result.exitCode).toBe(66);
  const message = (result.error as Error).message;
  expect(message).toContain(`pipeline file ${missing} cannot be read`);
  expect(message).toMatch(/no such file or directory/);
});

it('an import pipeline file given to export --pipeline is named as such, with the command it is for (78)', async () => {
  const path = join(ROOT, 'pipelines/csv-example.yaml');
  const result = await runCli(['export', '--pipeline', path, '--to', dir], {});
  expect(result.exitCode).toBe(78);
  expect((result.error as Error).message).toBe(
    `${path}: this is an import pipeline file (it has stages, or a slack, discord or mattermost block, and no kind: export); run it with \`chatport import <file>\`. export --pipeline takes an export pipeline file: kind: export, as pipelines/nightly-analytics.yaml (docs/export.md)`,
  );
});

it('a mistyped setting is named with its file:line and what was expected, as in import pipeline files (78)', async () => {
  const path = join(dir, 'typo.yaml');
  writeFileSync(path, 'kind: export\nto: /tmp/warehouse\nformat: parket\ndatasets: mesages\njob:\n  timeoutSecond: 60\n');
  const result = await runCli(['export', '--pipeline', path], {});
  expect(result.exitCode).toBe(78);
  expect((result.error as Error).message).toBe(
    [
      `pipeline file ${path} has 3 problem(s):`,
      `  ${path}:4: datasets: expected one of "all", "messages", "users", found text "mesages"`,
      `  ${path}:3: format: expected one of "parquet", "ndjson", "csv", found text "parket"`,
      `  ${path}:6: job.timeoutSecond: unknown field "timeoutSecond"; did you mean "timeoutSeconds"?`,
    ].join('\n'),
  );

  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'kind: export\nto: [/tmp\n');
  const yaml = await runCli(['export', '--pipeline', broken], {});
  expect(yaml.exitCode).toBe(78);
  expect((yaml.error as Error).message).toMatch(new RegExp(`^${broken}:3: not valid YAML: Flow sequence`));
});
