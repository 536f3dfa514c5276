import type { JsonObject } from '../../shopify/json.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import { money } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { formatShopTime } from '../shop-time.js';
import { FIRST_NAME_ASCII, FIRST_NAMES, LAST_NAME_ASCII, LAST_NAMES, NOTES, PLACES, TAGS } from '../vocabulary.js';
import { customerAddress } from './address.js';
import {
  createdMsOf,
  type GenContext,
  HISTORY_END_MS,
  KIND_OF,
  MAX_UPDATE_LAG_MS,
  orderIndicesOfCustomer,
} from './context.js';
import type { CustomerFacts } from './facts.js';

/** Generated emails embed the index (`….<index+1>@…`) so a uniqueness check never scans the shop. */
const EMAIL_INDEX = /\.(\d+)(?:\+[^@]*)?@/;

export function customerIndexFromEmail(email: string): number {
  const match = EMAIL_INDEX.exec(email);
  return match ? Number(match[1]) - 1 : -1;
}

export function customerFacts(ctx: GenContext, index: number): CustomerFacts {
  const rng = new Rng(ctx.seed, STREAM.customerFacts, index);
  const first = rng.int(FIRST_NAMES.length);
  const last = rng.int(LAST_NAMES.length);
  const domain = rng.weighted([
    ['example.com', 6],
    ['mail.example.com', 3],
    ['example.org', 1],
  ] as const);
  const plus = rng.chance(0.08) ? '+news' : '';
  const createdMs = createdMsOf(ctx, KIND_OF.customers, index, ctx.sizes.customers);
  const updatedMs =
    createdMs + Math.floor((rng.float() * Math.min(MAX_UPDATE_LAG_MS, HISTORY_END_MS - createdMs)) / 1000) * 1000;
  const tagCount = rng.weighted([
    [0, 5],
    [1, 3],
    [2, 1],
  ] as const);
  const tags = [...new Set(Array.from({ length: tagCount }, () => rng.pick(TAGS)))].sort().join(', ');
  return {
    index,
    id: ctx.ids.customers.idOf(index),
    firstName: FIRST_NAMES[first] as string,
    lastName: LAST_NAMES[last] as string,
    email: `${FIRST_NAME_ASCII[first]}.${LAST_NAME_ASCII[last]}.${index + 1}${plus}@${domain}`,
    phone: rng.chance(0.35) ? null : `+1${2_000_000_000 + index}`,
    state: rng.weighted([
      ['disabled', 60],
      ['enabled', 30],
      ['invited', 8],
      ['declined', 2],
    ] as const),
    tags,
    verifiedEmail: rng.chance(0.85),
    acceptsMarketing: rng.chance(0.4),
    country: rng.pick(PLACES).country,
    ordersCount: orderIndicesOfCustomer(ctx, index).count,
    createdMs,
    updatedMs,
  };
}

export function buildCustomer(ctx: GenContext, facts: CustomerFacts): JsonObject {
  const index = facts.index;
  const rng = new Rng(ctx.seed, STREAM.customerBody, index);
  const big = ctx.ids.customers.isBig(index);
  const id = wireId(facts.id);
  const created = formatShopTime(facts.createdMs);
  const orders = orderIndicesOfCustomer(ctx, index);
  const lastOrder = orders.count > 0 ? orders.first + (orders.count - 1) * orders.step : -1;
  const home = PLACES.find((place) => place.country === facts.country) ?? (PLACES[0] as (typeof PLACES)[number]);
  const addressCount = rng.weighted([
    [1, 7],
    [2, 2],
    [3, 1],
  ] as const);
  const addresses = Array.from({ length: addressCount }, (_, k) =>
    customerAddress(
      rng,
      k === 0 ? home : rng.pick(PLACES),
      { id: childId(CHILD_BASES.address, index, k, big), customerId: id },
      rng.chance(0.2) ? { first: null, last: null } : { first: facts.firstName, last: facts.lastName },
      k === 0,
    ),
  );
  const marketingMs = facts.createdMs + rng.int(86_400) * 1000;
  const smsState = facts.phone === null ? null : rng.pick(['not_subscribed', 'subscribed', 'unsubscribed']);
  return {
    id,
    email: facts.email,
    accepts_marketing: facts.acceptsMarketing,
    created_at: created,
    updated_at: formatShopTime(facts.updatedMs),
    first_name: facts.firstName,
    last_name: facts.lastName,
    orders_count: facts.ordersCount,
    state: facts.state,
    total_spent: money(orders.count * rng.between(1500, 40_000)),
    last_order_id: lastOrder < 0 ? null : wireId(ctx.ids.orders.idOf(lastOrder)),
    note: rng.chance(0.7) ? null : rng.pick(NOTES),
    verified_email: facts.verifiedEmail,
    multipass_identifier: null,
    tax_exempt: rng.chance(0.03),
    tags: facts.tags,
    last_order_name: lastOrder < 0 ? null : `#${1001 + lastOrder}`,
    currency: ctx.currency,
    phone: facts.phone,
    addresses,
    accepts_marketing_updated_at: formatShopTime(marketingMs),
    marketing_opt_in_level: facts.acceptsMarketing ? rng.pick(['single_opt_in', 'confirmed_opt_in', 'unknown']) : null,
    tax_exemptions: rng.chance(0.02) ? ['CA_STATUS_CARD_EXEMPTION'] : [],
    email_marketing_consent: {
      state: facts.acceptsMarketing ? 'subscribed' : 'not_subscribed',
      opt_in_level: facts.acceptsMarketing ? 'single_opt_in' : null,
      consent_updated_at: formatShopTime(marketingMs),
    },
    sms_marketing_consent:
      smsState === null
        ? null
        : {
            state: smsState,
            opt_in_level: 'single_opt_in',
            consent_updated_at: created,
            consent_collected_from: 'OTHER',
          },
    admin_graphql_api_id: `gid://shopify/Customer/${id}`,
    default_address: addresses[0] ?? null,
  };
}
