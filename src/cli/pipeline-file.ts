import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { resolvePipelineConfig, type PipelineConfig } from '../config/index.js';
import { ConfigError, InputMissingError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/**
 * Reads and resolves a pipeline file. Problems become one ConfigError (exit 78) whose message lists each
 * as `file:line: path: message`; warnings are logged.
 */
export async function loadPipelineFile(path: string, env: NodeJS.ProcessEnv, logger: Logger, missingEnv: 'error' | 'warn' | 'ignore' = 'error'): Promise<PipelineConfig> {
  const absolute = resolve(path);
  const text = await readFile(absolute, 'utf8').catch((cause: unknown) => {
    throw new InputMissingError(`pipeline file ${path} cannot be read: ${(cause as Error).message}`, { path }, cause);
  });
  const result = resolvePipelineConfig(text, { env, path: absolute, missingEnv });
  const where = (issue: { line?: number }) => `${path}${issue.line !== undefined ? `:${issue.line}` : ''}`;
  for (const w of result.warnings) logger.warn({ file: path, line: w.line, path: w.path }, `${where(w)}: ${w.message}`);
  if (!result.ok) {
    const lines = result.errors.map((e) => `  ${where(e)}: ${e.message}`);
    throw new ConfigError(`pipeline file ${path} has ${result.errors.length} problem(s):\n${lines.join('\n')}`, { file: path, errors: result.errors });
  }
  return result.config;
}
