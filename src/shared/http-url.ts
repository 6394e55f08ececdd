import { ConfigError } from './errors.js';

/**
 * `value` as an http(s) URL, or the ConfigError (exit 78) that names what it was meant to be (`what`) and
 * where it came from (`source`: a flag, a variable, a library option).
 */
export function parseHttpUrl(value: string, what: string, source: string): URL | ConfigError {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // fall through to the error below
  }
  return new ConfigError(`${what} "${value}" (from ${source}) is not an http(s) URL`, { field: what, source });
}
