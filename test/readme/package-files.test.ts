import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './readme.js';

/** The paths `npm pack` puts into the package, as an installed chatport has them. */
async function packedPaths(): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack!.files.map((f) => f.path));
}

/** The bundled samples the shipped pipelines fall back to (`${VAR:-../fixtures/…}`), as package paths. */
function pipelineSamples(): string[] {
  const samples: string[] = [];
  for (const name of readdirSync(join(ROOT, 'pipelines'))) {
    const text = readFileSync(join(ROOT, 'pipelines', name), 'utf8');
    for (const [, path] of text.matchAll(/\$\{\w+:-(\.\.\/fixtures\/[^}]+)\}/g)) samples.push(posix.normalize(posix.join('pipelines', path!)));
  }
  return samples;
}

describe('the published package', () => {
  it('holds every sample the shipped pipelines and `chatport demo` read', { timeout: 60_000 }, async () => {
    const packed = [...(await packedPaths())];
    const samples = [...new Set(pipelineSamples())];
    expect(samples).toEqual(expect.arrayContaining(['fixtures/discord/sample', 'fixtures/mattermost/sample/export.jsonl', 'fixtures/slack/sample']));
    const missing = samples.filter((sample) => !packed.some((path) => path === sample || path.startsWith(`${sample}/`)));
    expect(missing).toEqual([]);
  });
});
