/** Query values: arrays repeat the parameter (`members=a&members=b`), undefined is left out. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

/** `base` + `prefix` + `path`, tolerant of stray slashes; `path` is a path under the API root. */
export function buildApiUrl(base: string, prefix: string, path: string, query?: Query): URL {
  const root = base.replace(/\/+$/, '');
  const cleanPrefix = prefix ? `/${prefix.replace(/^\/+|\/+$/g, '')}` : '';
  const url = new URL(`${root}${cleanPrefix}/${path.replace(/^\/+/, '')}`);
  appendQuery(url, query);
  return url;
}

export function appendQuery(url: URL, query?: Query): void {
  if (!query) return;
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
    else url.searchParams.set(key, String(value));
  }
}

/**
 * The path of `url` as errors and logs show it. A capability link (an unguessable address that needs no
 * token, like an export's file link `/_exports/<token>/messages-1.csv`) shows only its last segment: the
 * rest may be the secret that opens it.
 */
export function shownPath(url: URL, capability = false): string {
  if (!capability) return url.pathname;
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  return last === undefined ? '/…' : `/…/${last}`;
}
