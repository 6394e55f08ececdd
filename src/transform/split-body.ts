/** Long bodies: one message over the platform's body limit becomes consecutive parts (Slack, `longBodies: split`). */

/**
 * Splits a body longer than `max` UTF-16 units into consecutive parts, each at most `max`: at the last
 * newline, else the last space, in the final quarter of the window, else at `max` — never inside a
 * surrogate pair. Splitting keeps every character (truncating would throw text away).
 */
export function splitBody(body: string, max: number): string[] {
  const parts: string[] = [];
  let rest = body;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const floor = Math.floor(max * 0.75);
    let cut = window.lastIndexOf('\n');
    if (cut < floor) cut = window.lastIndexOf(' ');
    if (cut < floor) {
      cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    } else cut += 1; // keep the separator at the end of the part it ends
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
