import { PAGE_SIZE } from '../wire/media.js';
import { clientError } from './errors.js';
import type { Ctx } from './http.js';
import { lowerBound } from './store.js';

/**
 * Offset pages (page, size, sort; management-api.md §4 and §8) and cursor pages (size, start, next,
 * relation; carried by links only). Size is 1..100 on every list (decisions.md); anything else is 400.
 */

export type SortKey<T> = (item: T) => string | number | boolean | undefined;

interface OffsetParams {
  page: number;
  size: number;
  sort: Array<{ key: string; desc: boolean }>;
}

function parseInteger(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw clientError(`'${name}' must be an integer, got '${raw}'`);
  return Number(raw);
}

export function parseSize(query: URLSearchParams): number {
  const size = parseInteger(query, 'size', PAGE_SIZE.default);
  if (size < PAGE_SIZE.min || size > PAGE_SIZE.max)
    throw clientError(`'size' must be between ${PAGE_SIZE.min} and ${PAGE_SIZE.max}, got ${size}`);
  return size;
}

function parseOffset(query: URLSearchParams, sortable: Record<string, SortKey<never>>): OffsetParams {
  const page = parseInteger(query, 'page', 0);
  if (page < 0) throw clientError(`'page' must be 0 or more (zero-based), got ${page}`);
  const size = parseSize(query);
  const sort: OffsetParams['sort'] = [];
  // `sort=name,desc` may repeat; `sort=name` alone is ascending.
  for (const value of query.getAll('sort')) {
    const [key, dir = 'asc', ...rest] = value.split(',');
    if (!key || !(key in sortable) || rest.length > 0 || !/^(asc|desc)$/i.test(dir))
      throw clientError(`'sort' must be 'property,(asc|desc)' with property one of ${Object.keys(sortable).join(', ')}; got '${value}'`);
    sort.push({ key, desc: dir.toLowerCase() === 'desc' });
  }
  return { page, size, sort };
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return (a as number) < (b as number) ? -1 : 1;
}

function pageUrl(baseUrl: string, ctx: Ctx, set: Record<string, string>): string {
  const query = new URLSearchParams(ctx.query);
  for (const [k, v] of Object.entries(set)) query.set(k, v);
  for (const k of ['start', 'next', 'relation']) if (!(k in set)) query.delete(k);
  return `${baseUrl}${ctx.path}?${query.toString()}`;
}

/** Renders one offset page of `items` (already filtered, in id order) as the §2 envelope. */
export function offsetPage<T>(
  ctx: Ctx,
  baseUrl: string,
  kind: string,
  items: readonly T[],
  render: (item: T) => unknown,
  sortable: Record<string, SortKey<T>>,
): Record<string, unknown> {
  const { page, size, sort } = parseOffset(ctx.query, sortable as Record<string, SortKey<never>>);
  let ordered = items;
  if (sort.length > 0) {
    ordered = [...items].sort((a, b) => {
      for (const { key, desc } of sort) {
        const c = compare(sortable[key]!(a), sortable[key]!(b));
        if (c !== 0) return desc ? -c : c;
      }
      return 0;
    });
  }
  const totalElements = ordered.length;
  const totalPages = Math.ceil(totalElements / size);
  const slice = ordered.slice(page * size, page * size + size);
  const last = Math.max(totalPages - 1, 0);
  const link = (n: number) => ({ href: pageUrl(baseUrl, ctx, { page: String(n), size: String(size) }) });
  const links: Record<string, { href: string }> = { first: link(0) };
  if (page > 0) links.prev = link(Math.min(page - 1, last));
  links.self = link(page);
  if (page < totalPages - 1) links.next = link(page + 1);
  links.last = link(last);
  return {
    _embedded: { [kind]: slice.map(render) },
    _links: links,
    page: { size, totalElements, totalPages, number: page },
  };
}

function parseCursorId(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw clientError(`'${name}' must be an int64 cursor taken from a link, got '${raw}'`);
  return Number(raw);
}

/**
 * Renders one cursor page over `ids` (ascending message ids). Pages run oldest to newest. Links:
 * `self` (start = first id, relation SELF), `next` (next = last id, relation NEXT) when newer items
 * exist, `prev` (start = first id, relation PREVIOUS) when older ones do. `accept` filters and fetches.
 */
export function cursorPage<T>(
  ctx: Ctx,
  baseUrl: string,
  kind: string,
  ids: readonly number[],
  accept: (id: number) => T | undefined,
  render: (item: T) => unknown,
): Record<string, unknown> {
  const size = parseSize(ctx.query);
  const start = parseCursorId(ctx.query, 'start');
  const next = parseCursorId(ctx.query, 'next');
  const relation = (ctx.query.get('relation') ?? (next !== undefined ? 'NEXT' : 'SELF')).toUpperCase();
  if (!['SELF', 'NEXT', 'PREVIOUS'].includes(relation))
    throw clientError(`'relation' must be SELF, PREVIOUS or NEXT, got '${relation}'`);
  const found: Array<{ index: number; item: T }> = [];
  if (relation === 'PREVIOUS') {
    if (start === undefined) throw clientError(`relation PREVIOUS needs 'start'`);
    for (let i = lowerBound(ids, start) - 1; i >= 0 && found.length < size; i--) {
      const item = accept(ids[i]!);
      if (item !== undefined) found.unshift({ index: i, item });
    }
  } else {
    let from = 0;
    if (relation === 'NEXT') {
      if (next === undefined) throw clientError(`relation NEXT needs 'next'`);
      from = lowerBound(ids, next + 1);
    } else if (start !== undefined) from = lowerBound(ids, start);
    for (let i = from; i < ids.length && found.length < size; i++) {
      const item = accept(ids[i]!);
      if (item !== undefined) found.push({ index: i, item });
    }
  }
  const links: Record<string, { href: string }> = {};
  const link = (set: Record<string, string>) => ({ href: pageUrl(baseUrl, ctx, { ...set, size: String(size) }) });
  if (found.length === 0) {
    links.self = { href: `${baseUrl}${ctx.path}${ctx.search}` };
  } else {
    const first = found[0]!;
    const last = found[found.length - 1]!;
    links.self = link({ start: String(ids[first.index]), relation: 'SELF' });
    if (anyAccepted(ids, accept, first.index - 1, -1)) links.prev = link({ start: String(ids[first.index]), relation: 'PREVIOUS' });
    if (anyAccepted(ids, accept, last.index + 1, 1)) links.next = link({ next: String(ids[last.index]), relation: 'NEXT' });
  }
  return { _embedded: { [kind]: found.map((f) => render(f.item)) }, _links: links, page: { size } };
}

function anyAccepted<T>(ids: readonly number[], accept: (id: number) => T | undefined, from: number, step: 1 | -1): boolean {
  for (let i = from; i >= 0 && i < ids.length; i += step) if (accept(ids[i]!) !== undefined) return true;
  return false;
}
