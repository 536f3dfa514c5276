import type { JsonObject } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { customerIndexFromEmail } from '../generate/customer.js';
import type { CustomerFacts } from '../generate/facts.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import { Rng, STREAM } from '../random.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { isObject, normalizeTags, optionalBody, stringOr, unwrap } from './envelope.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TEXT_FIELDS = ['first_name', 'last_name', 'note', 'multipass_identifier'] as const;
const FLAG_FIELDS = ['accepts_marketing', 'tax_exempt', 'verified_email'] as const;

function existing(state: ShopState, id: bigint): Entry<CustomerFacts> {
  const entry = state.stores.customers.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/** Shopify keeps emails and phones unique per shop. Generated emails name their index, so no scan is needed. */
function takenBy(state: ShopState, field: 'email' | 'phone', value: string): bigint | undefined {
  const store = state.stores.customers;
  const wanted = value.toLowerCase();
  const read = (facts: CustomerFacts) => (field === 'email' ? facts.email : facts.phone)?.toLowerCase();
  for (const entry of store.overlayEntries()) if (read(entry.facts) === wanted) return entry.facts.id;
  const index =
    field === 'email' ? customerIndexFromEmail(wanted) : /^\+1\d{10}$/.test(value) ? Number(value.slice(2)) - 2e9 : -1;
  if (index >= 0 && index < store.model.size && !store.isShadowed(index)) {
    const facts = store.model.facts(index);
    if (read(facts) === wanted) return facts.id;
  }
  return undefined;
}

function checkUnique(state: ShopState, input: JsonObject, self: bigint | null): void {
  const errors: Record<string, string[]> = {};
  if (typeof input.email === 'string' && input.email !== '') {
    if (!EMAIL.test(input.email)) errors.email = ['is invalid'];
    else {
      const owner = takenBy(state, 'email', input.email);
      if (owner !== undefined && owner !== self) errors.email = ['has already been taken'];
    }
  }
  if (typeof input.phone === 'string' && input.phone !== '') {
    const owner = takenBy(state, 'phone', input.phone);
    if (owner !== undefined && owner !== self) errors.phone = ['has already been taken'];
  }
  if (Object.keys(errors).length > 0) throw new ReplyError(ERRORS.validation(errors));
}

function addressesOf(input: JsonObject, customerId: JsonObject[string], index: number, big: boolean): JsonObject[] {
  const list = Array.isArray(input.addresses) ? input.addresses.filter(isObject) : [];
  return list.map((address, k) => {
    const first = stringOr(address.first_name, stringOr(input.first_name, null));
    const last = stringOr(address.last_name, stringOr(input.last_name, null));
    return {
      id: childId(CHILD_BASES.address, index, k, big),
      customer_id: customerId,
      first_name: first,
      last_name: last,
      company: stringOr(address.company, null),
      address1: stringOr(address.address1, null),
      address2: stringOr(address.address2, null),
      city: stringOr(address.city, null),
      province: stringOr(address.province, null),
      country: stringOr(address.country, null),
      zip: stringOr(address.zip, null),
      phone: stringOr(address.phone, null),
      name: [first, last].filter((part) => part).join(' '),
      province_code: stringOr(address.province_code, null),
      country_code: stringOr(address.country_code, null),
      country_name: stringOr(address.country, null),
      default: k === 0,
    };
  });
}

/** POST customers.json → 201; 422 without a name, email or phone, or with a taken email/phone. */
export function createCustomer(state: ShopState, request: SimRequest): Reply {
  const input = unwrap(request, 'customer');
  const has = (key: string) => typeof input[key] === 'string' && (input[key] as string).trim() !== '';
  if (!has('first_name') && !has('last_name') && !has('email') && !has('phone')) {
    throw new ReplyError(ERRORS.validation({ base: ['Customer must have a name, phone number or email address'] }));
  }
  checkUnique(state, input, null);
  const store = state.stores.customers;
  const { index, id, big } = store.allocate();
  const customerId = wireId(id);
  const now = formatShopTime(state.nowMs());
  const addresses = addressesOf(input, customerId, index, big);
  const record: JsonObject = {
    id: customerId,
    email: stringOr(input.email, null),
    accepts_marketing: input.accepts_marketing === true,
    created_at: now,
    updated_at: now,
    first_name: stringOr(input.first_name, null),
    last_name: stringOr(input.last_name, null),
    orders_count: 0,
    state: typeof input.password === 'string' ? 'enabled' : 'disabled',
    total_spent: '0.00',
    last_order_id: null,
    note: stringOr(input.note, null),
    verified_email: input.verified_email !== false,
    multipass_identifier: stringOr(input.multipass_identifier, null),
    tax_exempt: input.tax_exempt === true,
    tags: normalizeTags(input.tags) ?? '',
    last_order_name: null,
    currency: state.ctx.currency,
    phone: stringOr(input.phone, null),
    addresses,
    accepts_marketing_updated_at: now,
    marketing_opt_in_level: null,
    tax_exemptions: [],
    email_marketing_consent: null,
    sms_marketing_consent: null,
    admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
    ...(addresses[0] && { default_address: addresses[0] }),
  };
  store.save(record);
  return jsonReply(201, { customer: record }, 1);
}

/** PUT customers/{id}.json: body wrapped (`{"customer":{…}}`) or flat as in the seed; bumps updated_at. */
export function updateCustomer(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.customers;
  const entry = existing(state, id);
  const input = unwrap(request, 'customer', true);
  checkUnique(state, input, id);
  const record = structuredClone(store.recordOf(entry));
  if (typeof input.email === 'string' || input.email === null) record.email = input.email;
  if (typeof input.phone === 'string' || input.phone === null) record.phone = input.phone;
  for (const key of TEXT_FIELDS) if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  for (const key of FLAG_FIELDS) if (typeof input[key] === 'boolean') record[key] = input[key];
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
  record.updated_at = formatShopTime(state.nowMs());
  store.save(record, entry);
  return jsonReply(200, { customer: record }, 1);
}

export function deleteCustomer(state: ShopState, id: bigint): Reply {
  state.stores.customers.remove(existing(state, id));
  return jsonReply(200, {});
}

function refuseEnabled(record: JsonObject): void {
  // Shopify's documented answer when the account is already active.
  if (record.state === 'enabled') {
    throw new ReplyError({ status: 422, body: { errors: ['account already enabled'] } });
  }
}

/** POST customers/{id}/account_activation_url.json → {"account_activation_url":"https://…/account/activate/…"}. */
export function activationUrl(state: ShopState, id: bigint): Reply {
  const entry = existing(state, id);
  refuseEnabled(state.stores.customers.recordOf(entry));
  const rng = new Rng(state.options.seed, STREAM.token, Number(id % 1_000_000_007n), state.nowMs() / 1000);
  return jsonReply(200, {
    account_activation_url: `https://${state.ctx.shopDomain}/account/activate/${id}/${rng.hex(32)}-${Math.floor(state.nowMs() / 1000)}`,
  });
}

/** POST customers/{id}/send_invite.json → 201 {"customer_invite":{…}}; the customer's state becomes `invited`. */
export function sendInvite(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.customers;
  const entry = existing(state, id);
  const body = optionalBody(request);
  const invite = isObject(body.customer_invite) ? body.customer_invite : {};
  const record = structuredClone(store.recordOf(entry));
  refuseEnabled(record);
  if (typeof record.email !== 'string' || record.email === '') {
    throw new ReplyError(ERRORS.validation({ email: ["can't be blank"] }));
  }
  record.state = 'invited';
  record.updated_at = formatShopTime(state.nowMs());
  store.save(record, entry);
  return jsonReply(201, {
    customer_invite: {
      to: stringOr(invite.to, record.email),
      from: stringOr(invite.from, `store@${state.ctx.shopDomain}`),
      subject: stringOr(invite.subject, 'Customer account activation'),
      custom_message: stringOr(invite.custom_message, ''),
      bcc: Array.isArray(invite.bcc) ? invite.bcc : [],
    },
  });
}
