import type { CustomerFacts } from './generate/facts.js';

/**
 * Customer search `query`: space-separated `field:value` terms, all of which must match (a value may contain spaces,
 * as in `country:United States`, and `*` wildcards, as in `email:*@mail.example.com`). A bare word matches names,
 * email and phone. Matching is case-insensitive.
 */
export function parseCustomerQuery(query: string): (facts: CustomerFacts) => boolean {
  const terms = query
    .trim()
    .split(/\s+(?=[a-z_]+:)/i)
    .filter((term) => term !== '');
  const tests = terms.map((term) => {
    const colon = term.indexOf(':');
    if (colon < 0) {
      const words = term.split(/\s+/).map((word) => wildcard(word));
      return (f: CustomerFacts) =>
        words.every((word) => [f.firstName, f.lastName, f.email, f.phone].some((value) => word.test(value ?? '')));
    }
    const field = term.slice(0, colon).toLowerCase();
    const raw = term.slice(colon + 1).trim();
    const pattern = wildcard(raw, true);
    const read = FIELDS[field];
    if (!read) return () => false;
    if (field === 'tag' || field === 'customer_tag') {
      return (f: CustomerFacts) => f.tags.split(', ').some((tag) => pattern.test(tag));
    }
    return (f: CustomerFacts) => pattern.test(read(f));
  });
  return (facts) => tests.every((test) => test(facts));
}

const FIELDS: Record<string, (f: CustomerFacts) => string> = {
  email: (f) => f.email ?? '',
  first_name: (f) => f.firstName ?? '',
  last_name: (f) => f.lastName ?? '',
  phone: (f) => f.phone ?? '',
  state: (f) => f.state,
  country: (f) => f.country ?? '',
  tag: (f) => f.tags,
  customer_tag: (f) => f.tags,
  verified_email: (f) => String(f.verifiedEmail),
  accepts_marketing: (f) => String(f.acceptsMarketing),
  orders_count: (f) => String(f.ordersCount),
  id: (f) => f.id.toString(),
};

function wildcard(text: string, whole = false): RegExp {
  const unquoted = text.replace(/^"(.*)"$/, '$1');
  const body = unquoted
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(whole ? `^${body}$` : body, 'i');
}

/** `email:someone@example.com` without wildcards: the one address searched for, so no scan is needed. */
export function exactEmailOf(query: string): string | undefined {
  const match = /^\s*email:("?)([^\s*"]+)\1\s*$/i.exec(query);
  return match?.[2];
}
