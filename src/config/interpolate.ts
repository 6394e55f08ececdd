/**
 * `${NAME}` and `${NAME:-default}` in pipeline-file values. Like the shell: the default applies when the
 * variable is unset or empty; `$${` is a literal `${`. Only values are interpolated, never keys.
 */
export interface InterpolationResult {
  value: string;
  /** Variables referenced without a default that are unset (or empty). */
  missing: string[];
  /** Syntax problems (`${` without `}`, a bad name). */
  problems: string[];
  /** True when the text held any `${…}` reference. */
  changed: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): InterpolationResult {
  const result: InterpolationResult = { value: '', missing: [], problems: [], changed: false };
  if (!text.includes('${')) {
    result.value = text;
    return result;
  }
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('$', i);
    if (at === -1) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, at);
    if (text.startsWith('$${', at)) {
      out += '${';
      i = at + 3;
      result.changed = true;
      continue;
    }
    if (text[at + 1] !== '{') {
      out += '$';
      i = at + 1;
      continue;
    }
    const end = text.indexOf('}', at + 2);
    if (end === -1) {
      result.problems.push(`"\${" at character ${at + 1} has no closing "}" (write "$\${" for a literal "\${")`);
      out += text.slice(at);
      break;
    }
    const inner = text.slice(at + 2, end);
    const sep = inner.indexOf(':-');
    const name = sep === -1 ? inner : inner.slice(0, sep);
    result.changed = true;
    if (!NAME.test(name)) result.problems.push(`"\${${inner}}": ${JSON.stringify(name)} is not a variable name (letters, digits, _)`);
    const value = env[name];
    if (value !== undefined && value !== '') out += value;
    else if (sep !== -1) out += inner.slice(sep + 2);
    else result.missing.push(name);
    i = end + 1;
  }
  result.value = out;
  return result;
}
