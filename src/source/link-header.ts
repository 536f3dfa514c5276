import { ForeignLinkError, LinkHeaderError } from './errors.js';

/** What a `rel="next"` link may carry into the next request; everything else in it is ignored. */
export interface NextPage {
  pageInfo: string;
  limit?: string;
  fields?: string;
}

const ENTRY = /^<([^<>]*)>\s*;\s*rel="([^"]+)"$/;

/**
 * Reads the `rel="next"` cursor from a Shopify `Link` header. `expectedUrl` is the list URL we requested: the link
 * must have the same origin and path, or it is refused (ForeignLinkError) without ever being requested. Returns
 * undefined when there is no next page. Anything we cannot read exactly (unquoted rel, two next links, a relative or
 * broken URL, a link without page_info) throws LinkHeaderError, because guessing could end the list early.
 */
export function parseNextLink(header: string | undefined, expectedUrl: URL): NextPage | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  let next: string | undefined;
  for (const entry of header.split(/,\s*(?=<)/)) {
    const match = ENTRY.exec(entry.trim());
    if (!match) throw new LinkHeaderError(header, `cannot read entry ${JSON.stringify(entry.trim().slice(0, 80))}`);
    const [, target, rel] = match as unknown as [string, string, string];
    if (rel !== 'next') continue;
    if (next !== undefined) throw new LinkHeaderError(header, 'two rel="next" links');
    next = target;
  }
  if (next === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch (error) {
    throw new LinkHeaderError(header, `next link is not an absolute URL (${(error as Error).message})`);
  }
  if (url.origin !== expectedUrl.origin || url.pathname !== expectedUrl.pathname) {
    throw new ForeignLinkError(next, `${expectedUrl.origin}${expectedUrl.pathname}`);
  }
  const pageInfo = url.searchParams.get('page_info');
  if (!pageInfo) throw new LinkHeaderError(header, 'next link has no page_info');
  const result: NextPage = { pageInfo };
  const limit = url.searchParams.get('limit');
  if (limit !== null) {
    if (!/^\d+$/.test(limit)) throw new LinkHeaderError(header, `next link has limit=${limit}`);
    result.limit = limit;
  }
  const fields = url.searchParams.get('fields');
  if (fields !== null) result.fields = fields;
  return result;
}
