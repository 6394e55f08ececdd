/**
 * The tokens of what this process holds (state-folder locks, spill folders), one set per kind shared by
 * every copy of chatport loaded in the process (two packages depending on different copies, a test runner
 * loading modules afresh): a set per module copy let one copy take another's live lock for an earlier
 * life's of this pid. Per thread, as globalThis is.
 */
export function processTokens(kind: 'locks' | 'spill-folders'): Set<string> {
  const held = globalThis as { [key: symbol]: Set<string> | undefined };
  return (held[Symbol.for(`chatport.held-${kind}`)] ??= new Set<string>());
}
