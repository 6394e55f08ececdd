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
