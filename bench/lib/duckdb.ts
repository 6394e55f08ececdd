/**
 * DuckDB for the benchmarks only (a baseline to compare with). It is not a project dependency: the npm
 * registry reachable here lacks its bindings for other platforms, so a lock file holding it cannot pass
 * `npm ci`. The benchmark installs it on first use into bench/.work/duckdb.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { workDir } from './paths.js';

const DIR = workDir('duckdb');
const VERSION = '1.5.6-r.1';

/** The parts of @duckdb/node-api the benchmarks use. */
export interface DuckDBModule {
  DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckDBConnection>; closeSync(): void }> };
  DuckDBTimestampTZValue: new (micros: bigint) => unknown;
}
export interface DuckDBConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjects(): Array<Record<string, unknown>> }>;
  createAppender(table: string): Promise<DuckDBAppender>;
  closeSync(): void;
}

export interface DuckDBAppender {
  appendNull(): void;
  appendVarchar(value: string): void;
  appendBigInt(value: bigint): void;
  appendInteger(value: number): void;
  appendBoolean(value: boolean): void;
  appendTimestampTZ(value: unknown): void;
  endRow(): void;
  closeSync(): void;
}

export async function loadDuckDB(): Promise<DuckDBModule> {
  if (!existsSync(join(DIR, 'node_modules/@duckdb/node-api'))) {
    process.stderr.write(`installing @duckdb/node-api@${VERSION} into ${DIR} (benchmark baseline only)…\n`);
    execFileSync('npm', ['install', '--prefix', DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `@duckdb/node-api@${VERSION}`], { stdio: ['ignore', 2, 2] });
  }
  const entry = createRequire(join(DIR, 'package.json')).resolve('@duckdb/node-api');
  return (await import(pathToFileURL(entry).href)) as DuckDBModule;
}
