/** A parsed template: literal text and field references, alternating. */
export type TemplatePart = { text: string } | { field: string };

/**
 * Parses `"{first} {last}"`. `{{` and `}}` are literal braces; a field name is any text up to `}`.
 * Throws a plain Error describing the problem (the caller adds where it is in the pipeline file).
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '{') {
      if (template[i + 1] === '{') {
        text += '{';
        i++;
        continue;
      }
      const end = template.indexOf('}', i + 1);
      if (end === -1) throw new Error(`"{" at character ${i + 1} is not closed by "}" (write "{{" for a literal brace)`);
      const field = template.slice(i + 1, end).trim();
      if (field === '') throw new Error(`empty field name "{}" at character ${i + 1}`);
      if (text !== '') parts.push({ text });
      text = '';
      parts.push({ field });
      i = end;
    } else if (c === '}') {
      if (template[i + 1] !== '}') throw new Error(`"}" at character ${i + 1} has no "{" (write "}}" for a literal brace)`);
      text += '}';
      i++;
    } else text += c;
  }
  if (text !== '') parts.push({ text });
  return parts;
}

export function templateFields(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((p) => ('field' in p ? [p.field] : []));
}
