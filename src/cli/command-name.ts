/**
 * The command a command line (process.argv) names: its first word that is not an option (the program's
 * own options take no value). No imports: heap-first.ts reads it before any other module loads.
 */
export function commandNameOf(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((arg) => !arg.startsWith('-'));
}
