/**
 * Two texts that differ only in Unicode normalisation ("é" as one code point, or as "e" and a combining
 * accent) print the same, so a difference between them reads "léa" against "léa". The platform compares
 * code points, so they are two names all the same; this says why they differ, and the mapping option
 * (`unicode:`, docs/mapping-language.md) that makes the source write the platform's form.
 */
export function unicodeFormNote(platform: unknown, source: unknown): string | undefined {
  if (typeof platform !== 'string' || typeof source !== 'string' || platform === source) return undefined;
  if (platform.normalize('NFC') !== source.normalize('NFC')) return undefined;
  const held = formOf(platform);
  const advice = held.form === undefined ? '' : `; unicode: ${held.form} on the field's mapping writes the platform's form`;
  return `the same letters in another Unicode form: the platform's is ${held.label}, the source's ${formOf(source).label}${advice}`;
}

function formOf(text: string): { label: string; form?: 'NFC' | 'NFD' } {
  if (text === text.normalize('NFC')) return { label: 'composed (NFC)', form: 'NFC' };
  if (text === text.normalize('NFD')) return { label: 'decomposed (NFD)', form: 'NFD' };
  return { label: 'partly composed' };
}
