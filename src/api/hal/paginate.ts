import type { z } from 'zod';
import type { CallSpec, Transport } from '../core/transport.js';
import { resolveLink } from './links.js';

export interface Page<T> {
  items: T[];
  /** The `page` object of the envelope (offset pages: size, totalElements, totalPages, number). */
  page: Record<string, unknown> | undefined;
  /** The address this page came from. */
  url: URL;
}

type Envelope = { _embedded?: Record<string, unknown> | undefined; _links?: Record<string, { href: string; templated?: boolean | undefined }> | undefined; page?: unknown };

/**
 * Pages of a list, following `_links.next` from the first page on (wire rule 5). Works alike for
 * offset pages and cursor pages: a cursor page's next link carries `start`/`next`/`relation`, an
 * offset page's carries `page`; neither is built by hand. Stops at a page without a next link, an
 * empty page, or a next link seen before (a server bug would otherwise loop forever).
 */
export async function* iteratePages<S extends z.ZodType<Envelope>, T>(
  transport: Transport,
  first: CallSpec,
  schema: S,
  kind: string,
): AsyncGenerator<Page<T>> {
  let spec: CallSpec = first;
  let url = first.url ?? transport.urlFor(first.path ?? '/', first.query);
  const seen = new Set<string>();
  for (;;) {
    seen.add(url.href);
    const envelope = (await transport.sendJson({ ...spec, url, path: undefined, query: undefined }, schema)) as Envelope;
    const items = (envelope._embedded?.[kind] ?? []) as T[];
    yield { items, page: envelope.page as Record<string, unknown> | undefined, url };
    const next = resolveLink(envelope._links, 'next', url);
    if (!next || items.length === 0 || seen.has(next.href)) return;
    url = next;
    spec = { ...spec, operation: spec.operation.replace(/( \(next page\))?$/, ' (next page)') };
  }
}

/** The items of every page, one at a time. */
export async function* iterateItems<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.items;
}
