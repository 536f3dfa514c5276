import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { customerOrderEntries } from '../customer-orders.js';
import { ERRORS } from '../errors.js';
import { customerIndexFromEmail } from '../generate/customer.js';
import type { CustomerFacts } from '../generate/facts.js';
import { CHILD_BASES, childId, type WireId, wireId } from '../ids.js';
import { Rng, STREAM } from '../random.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { customerAddress } from './addresses.js';
import { isObject, normalizeTags, optionalBody, stringOr, timeInput, unwrap } from './envelope.js';
import { metafieldKey, readMetafields, saveMetafields } from './metafields.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TEXT_FIELDS = ['first_name', 'last_name', 'note', 'multipass_identifier', 'marketing_opt_in_level'] as const;
const FLAG_FIELDS = ['tax_exempt', 'verified_email'] as const;

function existing(state: ShopState, id: bigint): Entry<CustomerFacts> {
  const entry = state.stores.customers.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/** Shopify keeps emails and phones unique per shop. Generated emails name their index, so no scan is needed. */
export function customerWith(state: ShopState, field: 'email' | 'phone', value: string): bigint | undefined {
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

/** 422 `{"errors":{"email":["has already been taken"]}}` (or phone) when another customer holds the value. */
export function refuseTaken(state: ShopState, input: JsonObject, self: bigint | null): void {
  const errors: Record<string, string[]> = {};
  if (typeof input.email === 'string' && input.email !== '') {
    if (!EMAIL.test(input.email)) errors.email = ['is invalid'];
    else {
      const owner = customerWith(state, 'email', input.email);
      if (owner !== undefined && owner !== self) errors.email = ['has already been taken'];
    }
  }
  if (typeof input.phone === 'string' && input.phone !== '') {
    const owner = customerWith(state, 'phone', input.phone);
    if (owner !== undefined && owner !== self) errors.phone = ['has already been taken'];
  }
  if (Object.keys(errors).length > 0) throw new ReplyError(ERRORS.validation(errors));
}

/** Rails' password rules: at least 5 characters, and the confirmation (when sent) equal. */
function refuseBadPassword(input: JsonObject): void {
  if (input.password === undefined) return;
  if (typeof input.password !== 'string' || input.password.length < 5) {
    throw new ReplyError(ERRORS.validation({ password: ['is too short (minimum is 5 characters)'] }));
  }
  if (input.password_confirmation !== undefined && input.password_confirmation !== input.password) {
    throw new ReplyError(ERRORS.validation({ password_confirmation: ["doesn't match Password"] }));
  }
}

/** Marketing consent as 2022-01 serves it beside `accepts_marketing` (EX22 GET responses carry both). */
function emailConsent(record: JsonObject): JsonObject {
  const subscribed = record.accepts_marketing === true;
  return {
    state: subscribed ? 'subscribed' : 'not_subscribed',
    opt_in_level: subscribed ? (stringOr(record.marketing_opt_in_level, 'single_opt_in') as string) : null,
    consent_updated_at: record.accepts_marketing_updated_at as JsonValue,
  };
}

/** The marketing fields a create or update gives; a change of `accepts_marketing` stamps its time unless given. */
function applyMarketing(record: JsonObject, input: JsonObject, now: string): void {
  const at = timeInput(input.accepts_marketing_updated_at, 'accepts_marketing_updated_at');
  if (typeof input.accepts_marketing === 'boolean' && input.accepts_marketing !== record.accepts_marketing) {
    record.accepts_marketing = input.accepts_marketing;
    record.accepts_marketing_updated_at = now;
  }
  if (at !== undefined) record.accepts_marketing_updated_at = formatShopTime(at);
  if (Array.isArray(input.tax_exemptions)) record.tax_exemptions = input.tax_exemptions.map(String);
  if (isObject(input.sms_marketing_consent) || input.sms_marketing_consent === null) {
    record.sms_marketing_consent = input.sms_marketing_consent;
  }
  record.email_marketing_consent = emailConsent(record);
}

function applyFields(record: JsonObject, input: JsonObject): void {
  if (typeof input.email === 'string' || input.email === null) record.email = input.email;
  if (typeof input.phone === 'string' || input.phone === null) record.phone = input.phone;
  for (const key of TEXT_FIELDS) if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  for (const key of FLAG_FIELDS) if (typeof input[key] === 'boolean') record[key] = input[key];
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
}

/**
 * POST customers.json → 201. 422 without a name, email or phone, with a taken or invalid email, a taken phone, a bad
 * password or metafield. `send_email_invite: true` sends the account invite (state `invited`); a password makes the
 * account `enabled` and sends the welcome mail unless `send_email_welcome: false`. Both are counted, never sent.
 */
export function createCustomer(state: ShopState, request: SimRequest): Reply {
  return jsonReply(201, { customer: insertCustomer(state, unwrap(request, 'customer')) }, 1);
}

/** Validates and stores a new customer (for customers.json, and for an order that brings a new customer along). */
export function insertCustomer(state: ShopState, input: JsonObject): JsonObject {
  const has = (key: string) => typeof input[key] === 'string' && (input[key] as string).trim() !== '';
  if (!has('first_name') && !has('last_name') && !has('email') && !has('phone')) {
    throw new ReplyError(ERRORS.validation({ base: ['Customer must have a name, phone number or email address'] }));
  }
  refuseTaken(state, input, null);
  refuseBadPassword(input);
  const metafields = readMetafields(input.metafields);
  const store = state.stores.customers;
  const { index, id, big } = store.allocate();
  const customerId = wireId(id);
  const now = formatShopTime(state.nowMs());
  const invite = input.send_email_invite === true && has('email');
  const enabled = typeof input.password === 'string';
  const record: JsonObject = {
    id: customerId,
    email: null,
    accepts_marketing: false,
    created_at: now,
    updated_at: now,
    first_name: null,
    last_name: null,
    orders_count: 0,
    state: enabled ? 'enabled' : invite ? 'invited' : 'disabled',
    total_spent: '0.00',
    last_order_id: null,
    note: null,
    verified_email: true,
    multipass_identifier: null,
    tax_exempt: false,
    tags: '',
    last_order_name: null,
    currency: state.ctx.currency,
    phone: null,
    addresses: [],
    accepts_marketing_updated_at: now,
    marketing_opt_in_level: null,
    tax_exemptions: [],
    email_marketing_consent: null,
    sms_marketing_consent: null,
    admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
    default_address: null,
  };
  applyFields(record, input);
  if (typeof record.phone === 'string') {
    // EX22's customer create: a phone comes with SMS consent not given.
    record.sms_marketing_consent = {
      state: 'not_subscribed',
      opt_in_level: 'single_opt_in',
      consent_updated_at: null,
      consent_collected_from: 'OTHER',
    };
  }
  applyMarketing(record, input, now);
  const names = { first: record.first_name as string | null, last: record.last_name as string | null };
  const addresses = (Array.isArray(input.addresses) ? input.addresses.filter(isObject) : []).map((address, k) =>
    customerAddress(address, { id: childId(CHILD_BASES.address, index, k, big), customerId }, names, k === 0),
  );
  record.addresses = addresses;
  record.default_address = addresses[0] ?? null;
  store.save(record);
  saveMetafields(state, 'customer', customerId, metafields, now, big);
  const emails = state.ledger.sideEffects.emails;
  if (invite && !enabled) emails.invites++;
  if (input.send_email_welcome === true || (enabled && input.send_email_welcome !== false)) emails.welcomes++;
  return record;
}

/**
 * Addresses of a customer update. Whether Shopify replaces or merges an `addresses` array is unverified (restore.md
 * §1.6); the simulated shop merges as Rails' nested attributes do: an address with an id is updated, one without is
 * added, addresses left out stay.
 */
function mergeAddresses(state: ShopState, record: JsonObject, inputs: JsonObject[], big: boolean): void {
  const addresses = structuredClone(record.addresses as JsonObject[]);
  const names = { first: record.first_name as string | null, last: record.last_name as string | null };
  for (const input of inputs) {
    const k = addresses.findIndex((address) => input.id !== undefined && String(address.id) === String(input.id));
    if (k >= 0) {
      const old = addresses[k] as JsonObject;
      addresses[k] = customerAddress(
        { ...old, ...input },
        { id: old.id as JsonValue, customerId: record.id as JsonValue },
        names,
        old.default === true,
      );
    } else {
      const id = state.ledger.childId('address', big);
      addresses.push(customerAddress(input, { id, customerId: record.id as JsonValue }, names, addresses.length === 0));
    }
  }
  record.addresses = addresses;
  record.default_address = addresses.find((address) => address.default === true) ?? null;
}

/** PUT customers/{id}.json: body wrapped (`{"customer":{…}}`) or flat as in the seed; partial; bumps updated_at. */
export function updateCustomer(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.customers;
  const entry = existing(state, id);
  const input = unwrap(request, 'customer', true);
  refuseTaken(state, input, id);
  const metafields = readMetafields(input.metafields);
  const record = structuredClone(store.recordOf(entry));
  const now = formatShopTime(state.nowMs());
  const big = state.ctx.ids.customers.isBig(state.ctx.ids.customers.indexOf(id));
  applyFields(record, input);
  applyMarketing(record, input, now);
  if (Array.isArray(input.addresses)) mergeAddresses(state, record, input.addresses.filter(isObject), big);
  record.updated_at = now;
  store.save(record, entry);
  saveMetafields(state, 'customer', record.id as WireId, metafields, now, big);
  return jsonReply(200, { customer: record }, 1);
}

/**
 * DELETE customers/{id}.json → 200 {}; a customer with orders cannot be deleted (REF20; Shopify staff in
 * shopify-api-ruby#394): 422, with a body of our wording (Shopify's is unverified, restore.md §1.3).
 */
export function deleteCustomer(state: ShopState, id: bigint): Reply {
  const entry = existing(state, id);
  if (customerOrderEntries(state, id).length > 0) {
    throw new ReplyError(ERRORS.validation({ base: ['Cannot delete a customer who has orders'] }));
  }
  state.stores.customers.remove(entry);
  state.ledger.metafields.delete(metafieldKey('customer', id));
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

/** POST customers/{id}/send_invite.json → 201 {"customer_invite":{…}}; the customer becomes `invited`; counted. */
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
  state.ledger.sideEffects.emails.invites++;
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
