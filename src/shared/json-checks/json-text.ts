/** Reading a JSON text already known to be valid (JSON.parse accepted it). */

/** Index of the closing quote of the string opening at `start`. */
export function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22) return i;
  }
  return text.length;
}
