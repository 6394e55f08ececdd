import type { RuntimeRec } from '../store.js';

/** The runtime as it starts (decisions.md: default dependencies are always listed and cannot be removed). */
export const DEFAULT_DEPENDENCIES: RuntimeRec['dependencies'] = [
  { name: '@chatport/functions-sdk', version: '1.0.0', defaultDependency: true },
];

export const RUNTIME_VERSION = '20';

export function runtimeOf(runtime: RuntimeRec | undefined): RuntimeRec {
  return runtime ?? { dependencies: DEFAULT_DEPENDENCIES, environmentVariables: {}, initializationScript: '' };
}

/**
 * Limits of one handler run: a time limit (decisions.md: 5 s) and a memory bound; and how many handlers run
 * at once, so the bound holds for the sandbox too (a burst of sent messages would otherwise start an isolate
 * each: 600 at once took 6.7 GB and a minute per answer).
 */
export interface HandlerLimits {
  timeoutMs: number;
  memoryMb: number;
  concurrent: number;
}

export const DEFAULT_HANDLER_LIMITS: HandlerLimits = { timeoutMs: 5_000, memoryMb: 64, concurrent: 4 };
