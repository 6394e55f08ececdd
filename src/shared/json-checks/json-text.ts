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

export const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Whether the next character from `from` other than a space is a colon (a string before it is a key). */
export function isColonAt(text: string, from: number): boolean {
  let i = from;
  while (isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x3a /* : */;
}

/** The key a string token names: `"\u0061"` is the key `a`. */
export function keyOf(text: string, start: number, end: number): string {
  const token = text.slice(start, end + 1);
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

/** The array indexes and object keys leading to the value that starts at `offset`. */
export function pathAt(text: string, offset: number): Array<number | string> {
  const path: Array<number | string> = [];
  /** Per open container: whether it is an object (path's last entry is then its current key). */
  const isObject: boolean[] = [];
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      isObject.push(c === 0x7b);
      path.push(c === 0x7b ? '' : 0);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      isObject.pop();
      path.pop();
    } else if (c === 0x2c /* , */ && isObject.at(-1) === false) (path[path.length - 1] as number)++;
    else if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (isObject.at(-1) && isColonAt(text, end + 1)) path[path.length - 1] = keyOf(text, i, end);
      i = end;
    }
  }
  return path;
}
