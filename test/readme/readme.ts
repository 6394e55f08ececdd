import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** README.md's text. */
export const readme = (): string => readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first fenced block (of the given language) after a heading, exactly as README shows it. */
export function fencedBlockAfter(heading: string, lang: string): string {
  const text = readme();
  const at = text.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`README.md has no heading "${heading}"`);
  const open = text.indexOf(`\`\`\`${lang}\n`, at);
  if (open === -1) throw new Error(`README.md has no \`\`\`${lang} block after "${heading}"`);
  const start = open + lang.length + 4;
  return text.slice(start, text.indexOf('\n```', start) + 1);
}

/** The section under a heading, up to the next heading of any level. */
export function sectionAfter(heading: string): string {
  const text = readme();
  const at = text.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`README.md has no heading "${heading}"`);
  const rest = text.slice(at + heading.length + 2);
  const next = rest.search(/\n#{1,6} /);
  return next === -1 ? rest : rest.slice(0, next);
}
