import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { CHILD_BASES, childId, type WireId, wireId } from '../ids.js';
import { money, moneySet } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { formatShopTime } from '../shop-time.js';
import { CARRIERS, GATEWAYS, LOCALES, NOTES, REFERRERS, TAGS } from '../vocabulary.js';
import { orderAddress, pickPlace } from './address.js';
import { createdMsOf, customerIndexOfOrder, type GenContext, KIND_OF } from './context.js';
import { buildCustomer, customerFacts } from './customer.js';
import type { OrderFacts } from './facts.js';
import { productForLines } from './product.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const WEB_APP_ID = 580_111;
const POS_APP_ID = 129_785;

export function orderFacts(ctx: GenContext, index: number): OrderFacts {
  const rng = new Rng(ctx.seed, STREAM.orderFacts, index);
  const createdMs = createdMsOf(ctx, KIND_OF.orders, index, ctx.sizes.orders);
  const lifecycle = rng.weighted([
    ['open', 70],
    ['closed', 22],
    ['cancelled', 8],
  ] as const);
  let closedMs: number | null = null;
  let cancelledMs: number | null = null;
  let financialStatus: string;
  let fulfillmentStatus: string | null;
  if (lifecycle === 'cancelled') {
    cancelledMs = createdMs + rng.between(1, 120) * HOUR;
    if (rng.chance(0.5)) closedMs = cancelledMs + rng.between(1, 60) * 60_000;
    financialStatus = rng.chance(0.5) ? 'voided' : 'refunded';
    fulfillmentStatus = rng.chance(0.2) ? 'restocked' : null;
  } else if (lifecycle === 'closed') {
    closedMs = createdMs + rng.between(1, 30) * DAY;
    financialStatus = rng.weighted([
      ['paid', 85],
      ['partially_refunded', 10],
      ['refunded', 5],
    ] as const);
    fulfillmentStatus = rng.chance(0.9) ? 'fulfilled' : null;
  } else {
    financialStatus = rng.weighted([
      ['paid', 60],
      ['pending', 12],
      ['authorized', 10],
      ['partially_paid', 4],
      ['partially_refunded', 7],
      ['refunded', 7],
    ] as const);
    fulfillmentStatus = rng.weighted([
      [null, 50],
      ['fulfilled', 35],
      ['partial', 15],
    ] as const);
  }
  const lastChangeMs = Math.max(createdMs, closedMs ?? 0, cancelledMs ?? 0);
  const updatedMs = lastChangeMs + rng.int(7 * 86_400) * 1000;
  const customerIndex = customerIndexOfOrder(ctx, index);
  return {
    index,
    id: ctx.ids.orders.idOf(index),
    createdMs,
    updatedMs,
    processedMs: createdMs,
    closedMs,
    cancelledMs,
    financialStatus,
    fulfillmentStatus,
    customerId: customerIndex < 0 ? null : ctx.ids.customers.idOf(customerIndex),
    name: `#${1001 + index}`,
    appId: rng.weighted([
      [WEB_APP_ID, 85],
      [POS_APP_ID, 10],
      [null, 5],
    ] as const),
  };
}

interface LineDraft {
  id: WireId;
  productId: WireId | null;
  variantId: WireId | null;
  title: string;
  variantTitle: string | null;
  vendor: string | null;
  sku: string;
  grams: number;
  priceCents: number;
  quantity: number;
  properties: JsonObject[];
  discountCents: number;
  taxCents: number;
  fulfilled: boolean;
}

export function buildOrder(ctx: GenContext, facts: OrderFacts): JsonObject {
  const index = facts.index;
  const rng = new Rng(ctx.seed, STREAM.orderBody, index);
  const big = ctx.ids.orders.isBig(index);
  const id = wireId(facts.id);
  const cur = ctx.currency;
  const created = formatShopTime(facts.createdMs);
  const customerIndex = customerIndexOfOrder(ctx, index);
  const customer = customerIndex < 0 ? null : buildCustomer(ctx, customerFacts(ctx, customerIndex));
  const names =
    customer === null
      ? { first: rng.pick(['Guest', 'Ana', 'Li']), last: rng.pick(['Buyer', 'Silva', '陈']) }
      : { first: customer.first_name as string | null, last: customer.last_name as string | null };
  const email =
    customer === null ? (rng.chance(0.3) ? '' : `guest.${index + 1}@example.net`) : (customer.email as string);

  const lineCount = rng.weighted([
    [1, 40],
    [2, 30],
    [3, 15],
    [4, 10],
    [5, 5],
  ] as const);
  const taxRate = rng.weighted([
    [0.06, 5],
    [0.0825, 3],
    [0, 2],
  ] as const);
  const lines: LineDraft[] = [];
  for (let k = 0; k < lineCount; k++) {
    const lineId = childId(CHILD_BASES.lineItem, index, k, big);
    const quantity = rng.weighted([
      [1, 6],
      [2, 3],
      [3, 1],
    ] as const);
    if (ctx.sizes.products === 0 || rng.chance(0.03)) {
      lines.push({
        id: lineId,
        productId: null,
        variantId: null,
        title: rng.pick(['Custom engraving', 'Gift card', 'Service fee "express"']),
        variantTitle: null,
        vendor: null,
        sku: '',
        grams: 0,
        priceCents: rng.between(5, 50) * 100,
        quantity,
        properties: [],
        discountCents: 0,
        taxCents: 0,
        fulfilled: false,
      });
      continue;
    }
    const productIndex = rng.int(ctx.sizes.products);
    const { facts: product, shape } = productForLines(ctx, productIndex);
    const variant = rng.pick(shape.variants);
    lines.push({
      id: lineId,
      productId: wireId(product.id),
      variantId: variant.id,
      title: product.title,
      variantTitle: variant.title === 'Default Title' ? null : variant.title,
      vendor: product.vendor,
      sku: variant.sku,
      grams: variant.grams,
      priceCents: variant.priceCents,
      quantity,
      properties: rng.chance(0.1)
        ? [
            { name: 'Custom Engraving Front', value: rng.pick(['Happy Birthday', 'Für Oma ❤', '"Best Dad"']) },
            { name: '_private', value: 'x' },
          ]
        : [],
      discountCents: 0,
      taxCents: 0,
      fulfilled: false,
    });
  }
  const lineItemsCents = lines.reduce((sum, line) => sum + line.priceCents * line.quantity, 0);
  const discount = rng.chance(0.2)
    ? rng.chance(0.5)
      ? { code: 'TENOFF', type: 'fixed_amount', value: '10.0', cents: Math.min(1000, lineItemsCents) }
      : { code: 'WELCOME15', type: 'percentage', value: '15.0', cents: Math.round(lineItemsCents * 0.15) }
    : null;
  let allocated = 0;
  lines.forEach((line, k) => {
    const share =
      discount === null
        ? 0
        : k === lines.length - 1
          ? discount.cents - allocated
          : Math.floor((discount.cents * line.priceCents * line.quantity) / Math.max(1, lineItemsCents));
    allocated += share;
    line.discountCents = share;
    line.taxCents = Math.round((line.priceCents * line.quantity - share) * taxRate);
  });
  const discountCents = discount?.cents ?? 0;
  const taxCents = lines.reduce((sum, line) => sum + line.taxCents, 0);
  const shipping = rng.chance(0.85) ? rng.pick([0, 599, 1250, 2400]) : null;
  const shippingCents = shipping ?? 0;
  const totalCents = lineItemsCents - discountCents + taxCents + shippingCents;
  const fulfillmentStatus = facts.fulfillmentStatus;
  lines.forEach((line, k) => {
    line.fulfilled = fulfillmentStatus === 'fulfilled' || (fulfillmentStatus === 'partial' && k === 0);
  });

  const lineItem = (line: LineDraft): JsonObject => ({
    id: line.id,
    admin_graphql_api_id: `gid://shopify/LineItem/${line.id}`,
    fulfillable_quantity: line.fulfilled || facts.cancelledMs !== null ? 0 : line.quantity,
    fulfillment_service: 'manual',
    fulfillment_status: line.fulfilled ? 'fulfilled' : null,
    gift_card: line.title === 'Gift card',
    grams: line.grams,
    name: line.variantTitle === null ? line.title : `${line.title} - ${line.variantTitle}`,
    price: money(line.priceCents),
    price_set: moneySet(line.priceCents, cur),
    product_exists: line.productId !== null,
    product_id: line.productId,
    properties: line.properties,
    quantity: line.quantity,
    requires_shipping: line.grams > 0,
    sku: line.sku,
    taxable: taxRate > 0,
    title: line.title,
    total_discount: '0.00',
    total_discount_set: moneySet(0, cur),
    variant_id: line.variantId,
    variant_inventory_management: line.variantId === null ? null : 'shopify',
    variant_title: line.variantTitle,
    vendor: line.vendor,
    tax_lines:
      taxRate > 0
        ? [
            {
              channel_liable: null,
              price: money(line.taxCents),
              price_set: moneySet(line.taxCents, cur),
              rate: taxRate,
              title: taxRate === 0.06 ? 'State Tax' : 'Sales Tax',
            },
          ]
        : [],
    duties: [],
    discount_allocations:
      discount === null
        ? []
        : [
            {
              amount: money(line.discountCents),
              amount_set: moneySet(line.discountCents, cur),
              discount_application_index: 0,
            },
          ],
  });
  const lineItems = lines.map(lineItem);

  const fulfilledLines = lines.filter((line) => line.fulfilled);
  const fulfillments: JsonValue[] =
    fulfilledLines.length === 0
      ? []
      : [
          (() => {
            const fulfillmentId = childId(CHILD_BASES.fulfillment, index, 0, big);
            const carrier = rng.pick(CARRIERS);
            const tracking = rng.chance(0.2) ? null : `1Z${rng.hex(12).toUpperCase()}`;
            const at = formatShopTime(facts.createdMs + rng.between(2, 72) * HOUR);
            return {
              id: fulfillmentId,
              admin_graphql_api_id: `gid://shopify/Fulfillment/${fulfillmentId}`,
              created_at: at,
              location_id: wireId(CHILD_BASES.location),
              name: `${facts.name}.1`,
              order_id: id,
              origin_address: {},
              receipt: {},
              service: 'manual',
              shipment_status: rng.pick([null, 'in_transit', 'delivered']),
              status: 'success',
              tracking_company: tracking === null ? null : carrier,
              tracking_number: tracking,
              tracking_numbers: tracking === null ? [] : [tracking],
              tracking_url: tracking === null ? null : `https://track.example.com/?n=${tracking}`,
              tracking_urls: tracking === null ? [] : [`https://track.example.com/?n=${tracking}`],
              updated_at: at,
              line_items: fulfilledLines.map(lineItem),
            };
          })(),
        ];

  const refundedAll = facts.financialStatus === 'refunded';
  const refundedSome = facts.financialStatus === 'partially_refunded';
  const refundLines = refundedAll ? lines : refundedSome ? lines.slice(0, 1) : [];
  const refundSubtotal = refundLines.reduce((s, line) => s + line.priceCents * line.quantity - line.discountCents, 0);
  const refundTax = refundLines.reduce((s, line) => s + line.taxCents, 0);
  const refundCents = refundSubtotal + refundTax + (refundedAll ? shippingCents : 0);
  const gateway = rng.pick(GATEWAYS);
  const refunds: JsonValue[] =
    refundLines.length === 0
      ? []
      : [
          (() => {
            const refundId = childId(CHILD_BASES.refund, index, 0, big);
            const transactionId = childId(CHILD_BASES.transaction, index, 1, big);
            const at = formatShopTime(Math.min(facts.updatedMs, facts.createdMs + 3 * DAY));
            return {
              id: refundId,
              admin_graphql_api_id: `gid://shopify/Refund/${refundId}`,
              created_at: at,
              note: rng.chance(0.5) ? null : rng.pick(['it broke during shipping', 'Wrong size — "too small"']),
              order_id: id,
              processed_at: at,
              restock: rng.chance(0.5),
              total_duties_set: moneySet(0, cur),
              user_id: wireId(CHILD_BASES.user),
              order_adjustments: [],
              transactions: [
                {
                  id: transactionId,
                  admin_graphql_api_id: `gid://shopify/OrderTransaction/${transactionId}`,
                  amount: money(refundCents),
                  authorization: `auth-${rng.hex(8)}`,
                  created_at: at,
                  currency: cur,
                  device_id: null,
                  error_code: null,
                  gateway,
                  kind: 'refund',
                  location_id: null,
                  message: null,
                  order_id: id,
                  parent_id: childId(CHILD_BASES.transaction, index, 0, big),
                  processed_at: at,
                  receipt: {},
                  source_name: 'web',
                  status: 'success',
                  test: false,
                  user_id: null,
                },
              ],
              refund_line_items: refundLines.map((line, k) => ({
                id: childId(CHILD_BASES.refundLineItem, index, k, big),
                line_item_id: line.id,
                location_id: wireId(CHILD_BASES.location),
                quantity: line.quantity,
                restock_type: 'return',
                // Shopify serves these two as JSON numbers, unlike every other amount.
                subtotal: (line.priceCents * line.quantity - line.discountCents) / 100,
                subtotal_set: moneySet(line.priceCents * line.quantity - line.discountCents, cur),
                total_tax: line.taxCents / 100,
                total_tax_set: moneySet(line.taxCents, cur),
                line_item: lineItem(line),
              })),
              duties: [],
            };
          })(),
        ];

  const currentTotal = totalCents - refundCents;
  const outstanding =
    facts.financialStatus === 'pending' || facts.financialStatus === 'authorized'
      ? totalCents
      : facts.financialStatus === 'partially_paid'
        ? Math.floor(totalCents / 2)
        : 0;
  const place = pickPlace(rng);
  const shippingAddress = shipping === null ? null : orderAddress(rng, place, names);
  const billingAddress = rng.chance(0.05) ? null : orderAddress(rng, place, names);
  const source = facts.appId === POS_APP_ID ? 'pos' : rng.chance(0.05) ? 'shopify_draft_order' : 'web';
  const browserIp = source === 'pos' ? null : `${rng.between(1, 223)}.${rng.int(256)}.${rng.int(256)}.${rng.int(256)}`;
  const token = rng.hex(32);
  const noteAttributeCount = rng.weighted([
    [0, 7],
    [1, 2],
    [2, 1],
  ] as const);
  const tags = rng.chance(0.6) ? '' : [...new Set([rng.pick(TAGS), rng.pick(TAGS)])].sort().join(', ');
  const customerInOrder = customer === null ? null : orderCustomer(customer);

  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    app_id: facts.appId,
    browser_ip: browserIp,
    buyer_accepts_marketing: rng.chance(0.35),
    cancel_reason:
      facts.cancelledMs === null ? null : rng.pick(['customer', 'fraud', 'inventory', 'declined', 'other']),
    cancelled_at: facts.cancelledMs === null ? null : formatShopTime(facts.cancelledMs),
    cart_token: source === 'web' ? rng.hex(32) : null,
    checkout_id: source === 'web' ? childId(CHILD_BASES.checkout, index, 0, big) : null,
    checkout_token: source === 'web' ? rng.hex(32) : null,
    client_details:
      browserIp === null
        ? null
        : {
            accept_language: rng.pick(['en-US,en;q=0.9', 'fr-CA', 'ja-JP', null]),
            browser_height: null,
            browser_ip: browserIp,
            browser_width: null,
            session_hash: null,
            user_agent: rng.pick(['Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X)', null]),
          },
    closed_at: facts.closedMs === null ? null : formatShopTime(facts.closedMs),
    confirmed: true,
    contact_email: email === '' ? null : email,
    created_at: created,
    currency: cur,
    current_subtotal_price: money(lineItemsCents - discountCents - refundSubtotal),
    current_subtotal_price_set: moneySet(lineItemsCents - discountCents - refundSubtotal, cur),
    current_total_discounts: money(discountCents),
    current_total_discounts_set: moneySet(discountCents, cur),
    current_total_duties_set: null,
    current_total_price: money(currentTotal),
    current_total_price_set: moneySet(currentTotal, cur),
    current_total_tax: money(taxCents - refundTax),
    current_total_tax_set: moneySet(taxCents - refundTax, cur),
    customer_locale: rng.chance(0.2) ? null : rng.pick(LOCALES),
    device_id: null,
    discount_codes:
      discount === null ? [] : [{ code: discount.code, amount: money(discount.cents), type: discount.type }],
    email,
    estimated_taxes: false,
    financial_status: facts.financialStatus,
    fulfillment_status: fulfillmentStatus,
    gateway,
    landing_site: source === 'web' ? `/products/item-${rng.int(1000)}?utm_source=newsletter&ref="x"` : null,
    landing_site_ref: null,
    location_id: source === 'pos' ? wireId(CHILD_BASES.location) : null,
    merchant_of_record_app_id: null,
    name: facts.name,
    note: rng.chance(0.75) ? null : rng.pick(NOTES),
    note_attributes: Array.from({ length: noteAttributeCount }, (_, k) =>
      k === 0 ? { name: 'gift_message', value: rng.pick(NOTES) } : { name: 'delivery_date', value: '2024-02-29' },
    ),
    number: index + 1,
    order_number: 1001 + index,
    order_status_url: `https://${ctx.shopDomain}/548380009/orders/${token}/authenticate?key=${rng.hex(16)}`,
    original_total_duties_set: null,
    payment_gateway_names: [gateway],
    phone: customer === null ? null : (customer.phone as JsonValue),
    presentment_currency: cur,
    processed_at: formatShopTime(facts.processedMs),
    processing_method: rng.pick(['direct', 'express', 'offsite', 'manual']),
    reference: null,
    referring_site: rng.pick(REFERRERS),
    source_identifier: null,
    source_name: source,
    source_url: null,
    subtotal_price: money(lineItemsCents - discountCents),
    subtotal_price_set: moneySet(lineItemsCents - discountCents, cur),
    tags,
    tax_lines:
      taxRate > 0
        ? [
            {
              price: money(taxCents),
              rate: taxRate,
              title: taxRate === 0.06 ? 'State Tax' : 'Sales Tax',
              price_set: moneySet(taxCents, cur),
              channel_liable: null,
            },
          ]
        : [],
    taxes_included: false,
    test: rng.chance(0.01),
    token,
    total_discounts: money(discountCents),
    total_discounts_set: moneySet(discountCents, cur),
    total_line_items_price: money(lineItemsCents),
    total_line_items_price_set: moneySet(lineItemsCents, cur),
    total_outstanding: money(outstanding),
    total_price: money(totalCents),
    total_price_set: moneySet(totalCents, cur),
    total_shipping_price_set: moneySet(shippingCents, cur),
    total_tax: money(taxCents),
    total_tax_set: moneySet(taxCents, cur),
    total_tip_received: '0.00',
    total_weight: lines.reduce((sum, line) => sum + line.grams * line.quantity, 0),
    updated_at: formatShopTime(facts.updatedMs),
    user_id: source === 'pos' ? wireId(CHILD_BASES.user) : null,
    billing_address: billingAddress,
    customer: customerInOrder,
    discount_applications:
      discount === null
        ? []
        : [
            {
              target_type: 'line_item',
              type: 'discount_code',
              value: discount.value,
              value_type: discount.type,
              allocation_method: 'across',
              target_selection: 'all',
              code: discount.code,
            },
          ],
    fulfillments,
    line_items: lineItems,
    payment_details:
      gateway === 'shopify_payments'
        ? {
            credit_card_bin: null,
            avs_result_code: null,
            cvv_result_code: null,
            credit_card_number: `•••• •••• •••• ${String(rng.between(1000, 9999))}`,
            credit_card_company: rng.pick(['Visa', 'Mastercard', 'American Express']),
          }
        : null,
    payment_terms:
      facts.financialStatus === 'pending' && rng.chance(0.3)
        ? { payment_terms_name: 'Net 30', payment_terms_type: 'net', due_in_days: 30, payment_schedules: [] }
        : null,
    refunds,
    shipping_address: shippingAddress,
    shipping_lines:
      shipping === null
        ? []
        : [
            {
              id: childId(CHILD_BASES.shippingLine, index, 0, big),
              carrier_identifier: null,
              code: shipping === 0 ? 'Free Shipping' : 'Standard',
              delivery_category: null,
              discounted_price: money(shipping),
              discounted_price_set: moneySet(shipping, cur),
              phone: null,
              price: money(shipping),
              price_set: moneySet(shipping, cur),
              requested_fulfillment_service_id: null,
              source: 'shopify',
              title: shipping === 0 ? 'Free Shipping' : 'Standard — 3–5 días',
              tax_lines: [],
              discount_allocations: [],
            },
          ],
  };
}

/** The customer as an order embeds it: the customer record without its order aggregates and address list. */
export function orderCustomer(customer: JsonObject): JsonObject {
  return {
    id: customer.id as JsonValue,
    email: customer.email as JsonValue,
    accepts_marketing: customer.accepts_marketing as JsonValue,
    created_at: customer.created_at as JsonValue,
    updated_at: customer.updated_at as JsonValue,
    first_name: customer.first_name as JsonValue,
    last_name: customer.last_name as JsonValue,
    state: customer.state as JsonValue,
    note: customer.note as JsonValue,
    verified_email: customer.verified_email as JsonValue,
    multipass_identifier: customer.multipass_identifier as JsonValue,
    tax_exempt: customer.tax_exempt as JsonValue,
    tags: customer.tags as JsonValue,
    currency: customer.currency as JsonValue,
    phone: customer.phone as JsonValue,
    accepts_marketing_updated_at: customer.accepts_marketing_updated_at as JsonValue,
    marketing_opt_in_level: customer.marketing_opt_in_level as JsonValue,
    tax_exemptions: customer.tax_exemptions as JsonValue,
    email_marketing_consent: customer.email_marketing_consent as JsonValue,
    sms_marketing_consent: customer.sms_marketing_consent as JsonValue,
    admin_graphql_api_id: customer.admin_graphql_api_id as JsonValue,
    default_address: customer.default_address as JsonValue,
  };
}
