import { compileFunction } from 'node:vm';
import { transform } from 'sucrase';

/**
 * A handler may be TypeScript (decisions.md): its types are stripped before it runs, nothing else changed
 * (sucrase's `typescript` transform removes type syntax only; imports are not rewritten).
 */
export function stripTypes(source: string): string {
  return transform(source, { transforms: ['typescript'], disableESTransforms: true }).code;
}

/**
 * Throws when a script cannot run: stripping can leave what JavaScript lacks (a decorator), so the result is
 * compiled (never run) as the function body the runtime runs it as. Module syntax is turned into
 * require/exports for this check only: a deploy with an `import` is taken, as the platform, which installs
 * dependencies, may take it.
 */
export function checkCompiles(source: string): void {
  compileFunction(transform(source, { transforms: ['typescript', 'imports'], disableESTransforms: true }).code);
}
