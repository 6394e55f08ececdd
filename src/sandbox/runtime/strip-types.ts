import { transform } from 'sucrase';

/**
 * A handler may be TypeScript (decisions.md): its types are stripped before it runs, nothing else changed
 * (sucrase's `typescript` transform removes type syntax only; imports are not rewritten).
 */
export function stripTypes(source: string): string {
  return transform(source, { transforms: ['typescript'], disableESTransforms: true }).code;
}
