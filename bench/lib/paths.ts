/**
 * Where the benchmarks find the project: they run compiled (dist-bench/bench/…), so paths are taken from
 * the checkout's root, not from the compiled file's place.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bench', 'lib'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no chatport checkout above ${from}`);
  }
}

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
/** The built command line every benchmark measures. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** Scratch space for generated inputs (git-ignored). */
export const workDir = (...parts: string[]): string => join(ROOT, 'bench', '.work', ...parts);
/** Plain JavaScript helpers that are not compiled (bench/lib/*.mjs). */
export const benchLib = (file: string): string => join(ROOT, 'bench', 'lib', file);
