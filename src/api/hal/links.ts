import { parseTemplate, type PrimitiveValue } from 'url-template';

export type LinkVariables = Record<string, PrimitiveValue | PrimitiveValue[]>;
type HalLinks = Record<string, { href: string; templated?: boolean | undefined }> | undefined;

/**
 * The address of a HAL link (wire rule 5): `href` is an RFC 6570 template, expanded with `variables`
 * (unset variables vanish, as the RFC says), then resolved against the document's own address so a
 * relative href works. Returns undefined when the resource has no such link.
 */
export function resolveLink(links: HalLinks, rel: string, base: URL, variables: LinkVariables = {}): URL | undefined {
  const link = links?.[rel];
  if (!link) return undefined;
  // Expand even when `templated` is missing: some revisions send templates without the flag, and a
  // plain href has nothing to expand.
  const href = link.href.includes('{') ? parseTemplate(link.href).expand(variables) : link.href;
  return new URL(href, base);
}
