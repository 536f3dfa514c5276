import { isJsonObject, type JsonObject, type JsonValue } from '../../shopify/json.js';
import { fieldDiff, topField } from './field-diff.js';
import { type IdLookup, idText, wireId } from './ids.js';
import { MARKER_ATTRIBUTE, markerOf, noteAttributes, withMarker } from './natural-keys.js';
import { type OrderStateStep, orderStateSteps } from './order-states.js';
import { children } from './pairing.js';
import { ORDER_FIXED_REASON, ORDER_PUT_FIELDS, RESTORABLE, UPDATABLE } from './restorable.js';
import { type FixedChange, present, type RecordUpdate } from './update.js';
import { moneyCents, tagList } from './values.js';

/** What restored orders carry as their source: Shopify reserves its channel names (web, pos, …). */
export const RESTORED_SOURCE_NAME = 'shopsnap-restore';

/** Something of one record that its create body cannot carry as the snapshot has it, and why (for the report). */
export interface CreateNote {
  path: string;
  reason: string;
}

const STATE_OF_CANCEL = ['cancelled', 'cancel_reason'];
const ADDRESS_FIELDS = RESTORABLE.orders.children.billing_address ?? [];
const LINE_FIELDS = ['title', 'price', 'quantity', 'sku', 'grams', 'taxable', 'requires_shipping'] as const;

/**
 * `POST orders.json` for a snapshot order, tagged with the provenance marker. Line items point at the target's
 * variants through the id map; a line whose variant has no counterpart becomes a custom line item (title, price,
 * quantity, sku), noted. The customer goes through the customer map. financial_status is always sent (Shopify
 * would make the order `paid`); the name, processed_at, tags, note, note attributes, addresses, the order's tax lines
 * (not the line items': Shopify refuses both), shipping lines and discount codes are kept. Nothing fires: no receipt,
 * no fulfilment receipt, no stock change (`inventory_behaviour: bypass`). A fulfilled order is created fulfilled;
 * cancel and close follow as order state steps. An order created without a customer is created without its email
 * too, which `guestEmail` sets afterwards: given an email no customer has, order create makes that customer.
 */
export function orderCreateBody(snapshot: JsonObject, ids: IdLookup): { body: JsonObject; notes: CreateNote[] } {
  const source = idText(snapshot.id) as string;
  const notes: CreateNote[] = [];
  const lineItems = children(snapshot.line_items).map((line, k) => {
    const fields = present({
      ...Object.fromEntries(LINE_FIELDS.map((field) => [field, line[field]])),
      properties: Array.isArray(line.properties) && line.properties.length > 0 ? line.properties : undefined,
    });
    if (line.gift_card === true) {
      notes.push({ path: `$.line_items[${k}]`, reason: 'a gift card line is restored as a plain custom item' });
    }
    const variant = idText(line.variant_id);
    const mapped = variant === undefined ? undefined : ids.target('variants', variant);
    if (mapped !== undefined) return { variant_id: wireId(mapped), ...fields };
    if (variant !== undefined) {
      const reason = `variant ${variant} has no counterpart in the target: restored as a custom line item`;
      notes.push({ path: `$.line_items[${k}].variant_id`, reason });
    }
    return fields;
  });
  const customer = isJsonObject(snapshot.customer) ? idText(snapshot.customer.id) : undefined;
  const mappedCustomer = customer === undefined ? undefined : ids.target('customers', customer);
  if (customer !== undefined && mappedCustomer === undefined) {
    const reason = `customer ${customer} has no counterpart in the target: the order is created without one`;
    notes.push({ path: '$.customer', reason });
  }
  const fields = present({
    name: snapshot.name,
    processed_at: snapshot.processed_at,
    currency: snapshot.currency,
    email: mappedCustomer === undefined ? undefined : snapshot.email,
    phone: snapshot.phone,
    financial_status: typeof snapshot.financial_status === 'string' ? snapshot.financial_status : 'pending',
    fulfillment_status: snapshot.fulfillment_status === 'fulfilled' ? 'fulfilled' : undefined,
    buyer_accepts_marketing: snapshot.buyer_accepts_marketing,
    taxes_included: snapshot.taxes_included,
    tags: tagList(snapshot.tags).join(', '),
    note: snapshot.note,
    note_attributes: userAttributes(snapshot),
    billing_address: address(snapshot.billing_address, true),
    shipping_address: address(snapshot.shipping_address, true),
    customer: mappedCustomer === undefined ? undefined : { id: wireId(mappedCustomer) },
    line_items: lineItems,
    tax_lines: picked(snapshot.tax_lines, 'tax_lines'),
    total_tax: snapshot.total_tax,
    shipping_lines: picked(snapshot.shipping_lines, 'shipping_lines'),
    discount_codes: discountCodes(snapshot, notes),
  });
  const order = {
    ...withMarker('orders', fields, source),
    source_name: RESTORED_SOURCE_NAME,
    inventory_behaviour: 'bypass',
    send_receipt: false,
    send_fulfillment_receipt: false,
  };
  return { body: { order }, notes };
}

/**
 * The email of an order created without a customer (a guest order, or one whose customer has no counterpart in the
 * target), sent by `PUT orders/{id}.json` once the order exists; undefined when there is none or the create carries
 * it. Order create links the customer who has the email, or creates one named after the billing address (Shopify's
 * 2022-01 order examples; the simulated shop does the same): a restored guest order would add a customer the snapshot
 * does not have, or be attached to someone else's account. An order's PUT takes `email` without either in the
 * simulated shop; what a real shop does there is unverified, and verification compares the order's customer.
 */
export function guestEmail(snapshot: JsonObject, ids: IdLookup): string | undefined {
  if (typeof snapshot.email !== 'string' || snapshot.email === '') return undefined;
  const customer = isJsonObject(snapshot.customer) ? idText(snapshot.customer.id) : undefined;
  return customer !== undefined && ids.target('customers', customer) !== undefined ? undefined : snapshot.email;
}

/**
 * The update of an existing order: `PUT orders/{id}.json` with the fields its PUT takes that differ (the target's
 * marker kept among the note attributes), the state steps (cancel, close, open), and every other difference as
 * "cannot roll back" with its reason.
 */
export function orderUpdate(
  snapshot: JsonObject,
  target: JsonObject,
  ids: IdLookup,
): RecordUpdate & { steps: OrderStateStep[] } {
  const diff = fieldDiff('orders', snapshot, target, ids);
  const changed = new Set(diff.map((change) => topField(change.path)));
  const body: JsonObject = { id: target.id as JsonValue };
  for (const field of ORDER_PUT_FIELDS) {
    if (!changed.has(field)) continue;
    if (field === 'tags') body.tags = tagList(snapshot.tags).join(', ');
    else if (field === 'note_attributes') body.note_attributes = attributesKeepingMarker(snapshot, target);
    else if (field === 'shipping_address') body.shipping_address = address(snapshot.shipping_address, false) ?? null;
    else body[field] = snapshot[field] ?? null;
  }
  const states = orderStateSteps(snapshot, target);
  const stepped = new Set(states.steps.flatMap((step) => (step.action === 'cancel' ? STATE_OF_CANCEL : ['closed'])));
  const cannotRollBack: FixedChange[] = diff.flatMap((change) => {
    const field = topField(change.path);
    if (ORDER_PUT_FIELDS.has(field) || stepped.has(field)) return [];
    // A reason left without its cancel shares the cancel's fate.
    const state = states.cannot.find((item) => item.field === field) ?? states.cannot[0];
    const reason = UPDATABLE.orders.has(field) && state !== undefined ? state.reason : ORDER_FIXED_REASON;
    return [{ ...change, reason }];
  });
  return { body: Object.keys(body).length > 1 ? { order: body } : undefined, steps: states.steps, cannotRollBack };
}

/** The snapshot's note attributes without any marker of its own. */
function userAttributes(order: JsonObject): JsonValue[] {
  return noteAttributes(order.note_attributes)
    .filter((item) => item.name !== MARKER_ATTRIBUTE)
    .map((item) => ({ name: item.name ?? null, value: item.value ?? null }));
}

function attributesKeepingMarker(snapshot: JsonObject, target: JsonObject): JsonValue {
  const attributes = { note_attributes: userAttributes(snapshot) };
  const marker = markerOf('orders', target);
  return (marker === undefined ? attributes : withMarker('orders', attributes, marker)).note_attributes as JsonValue;
}

function address(value: JsonValue | undefined, dropNulls: boolean): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const entries = Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, value[field] ?? null]));
  return dropNulls ? present(entries) : entries;
}

/**
 * The snapshot's discount codes as order create takes them, so the created order takes off what the source's did. A
 * served code's `amount` is the money it took off, but on create a `percentage` code's `amount` is the percentage
 * (REF20 order create; the simulated shop likewise), which the order's discount application of that code holds as its
 * `value` (its `code`, or its `title` on an order created through the API, whose application is `manual`). The
 * percentage is sent when it gives back that money from the line items, which is what the shop applies it to; a code
 * applied to some lines only, or without its application, goes as the fixed amount it took off, noted: the order's
 * totals come first.
 */
function discountCodes(order: JsonObject, notes: CreateNote[]): JsonValue[] {
  const applications = children(order.discount_applications);
  const lineItemsCents = moneyCents(order.total_line_items_price);
  return picked(order.discount_codes, 'discount_codes').map((code, k) => {
    if (!isJsonObject(code) || code.type !== 'percentage') return code;
    const application = applications.find(
      (item) => item.value_type === 'percentage' && (item.code ?? item.title) === code.code,
    );
    const percent = Number(application?.value ?? Number.NaN);
    const taken = moneyCents(code.amount);
    if (
      Number.isFinite(percent) &&
      lineItemsCents !== undefined &&
      Math.round((lineItemsCents * percent) / 100) === taken
    ) {
      return { ...code, amount: application?.value ?? null };
    }
    const reason = !Number.isFinite(percent)
      ? 'no discount application gives the percentage: restored as the fixed amount it took off'
      : `${percent}% of the line items is not the ${code.amount} it took off (it applied to some lines only): restored as that fixed amount`;
    notes.push({ path: `$.discount_codes[${k}].type`, reason });
    return { ...code, type: 'fixed_amount' };
  });
}

function picked(value: JsonValue | undefined, child: 'tax_lines' | 'shipping_lines' | 'discount_codes'): JsonValue[] {
  const fields = RESTORABLE.orders.children[child] ?? [];
  return children(value).map((item) => present(Object.fromEntries(fields.map((field) => [field, item[field]]))));
}
