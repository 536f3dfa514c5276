import { describe, expect, it } from 'vitest';
import { type IdLookup, idLookup } from '../../../src/restore/records/ids.js';
import { withMarker } from '../../../src/restore/records/natural-keys.js';
import { guestEmail, orderCreateBody, orderUpdate } from '../../../src/restore/records/order-bodies.js';
import { ORDER_FIXED_REASON } from '../../../src/restore/records/restorable.js';
import { type JsonObject, type JsonValue, stringifyJson } from '../../../src/shopify/json.js';
import { CHESTNUT_STREET, edited, exampleRecord, NEAR_2_63 } from './records.js';

const snapshot = exampleRecord('orders', NEAR_2_63);
const source = String(snapshot.id);
const lines = (record: JsonObject) => record.line_items as JsonObject[];
const old = (id: bigint) => String(id + NEAR_2_63);
// Target ids just above 2^53, where a JS number would round them.
const ids = idLookup({
  variants: new Map([
    [old(39072856n), '9007199254740993'],
    [old(49148385n), '9007199254740995'],
    [old(457924702n), '9007199254740997'],
  ]),
  customers: new Map([[old(207119551n), '9007199254740999']]),
});
const bob = {
  first_name: 'Bob',
  last_name: 'Norman',
  ...CHESTNUT_STREET,
  phone: '+1(502)-459-2181',
};
const line = (sku: string) => ({
  title: 'IPod Nano - 8gb',
  price: '199.00',
  quantity: 1,
  sku,
  grams: 200,
  taxable: true,
  requires_shipping: true,
});
const engraving = [
  { name: 'Custom Engraving Front', value: 'Happy Birthday' },
  { name: 'Custom Engraving Back', value: 'Merry Christmas' },
];

describe('orderCreateBody', () => {
  it('keeps what the order says, maps its references, and fires nothing', () => {
    const { body, notes } = orderCreateBody(snapshot, ids);
    expect(body).toEqual({
      order: {
        name: '#1001',
        processed_at: '2008-01-10T11:00:00-05:00',
        currency: 'USD',
        email: 'bob.norman@mail.example.com',
        phone: '+557734881234',
        financial_status: 'partially_refunded',
        buyer_accepts_marketing: false,
        taxes_included: false,
        tags: '',
        note_attributes: [
          { name: 'custom engraving', value: 'Happy Birthday' },
          { name: 'colour', value: 'green' },
          { name: 'shopsnap_source_id', value: source },
        ],
        billing_address: bob,
        shipping_address: bob,
        customer: { id: 9007199254740999n },
        line_items: [
          { variant_id: 9007199254740993n, ...line('IPOD2008GREEN'), properties: engraving },
          { variant_id: 9007199254740995n, ...line('IPOD2008RED') },
          { variant_id: 9007199254740997n, ...line('IPOD2008BLACK') },
        ],
        tax_lines: [{ title: 'State Tax', price: '11.94', rate: 0.06 }],
        total_tax: '11.94',
        shipping_lines: [{ title: 'Free Shipping', code: 'Free Shipping', source: 'shopify', price: '0.00' }],
        discount_codes: [{ code: 'TENOFF', amount: '10.00', type: 'fixed_amount' }],
        source_name: 'shopsnap-restore',
        inventory_behaviour: 'bypass',
        send_receipt: false,
        send_fulfillment_receipt: false,
      },
    });
    expect(notes).toEqual([]);
    // On the wire the ids are bare integer literals, exact beyond 2^53.
    expect(stringifyJson(body)).toContain('"variant_id":9007199254740993,');
    expect(stringifyJson(body)).toContain('"customer":{"id":9007199254740999}');
  });

  it('makes a custom line item of a variant without a counterpart, and creates without an unmapped customer', () => {
    const some: IdLookup = { target: (kind, id) => (kind === 'variants' && id === old(39072856n) ? '7' : undefined) };
    const { body, notes } = orderCreateBody(snapshot, some);
    const order = body.order as JsonObject;
    expect(order.line_items).toEqual([
      { variant_id: 7, ...line('IPOD2008GREEN'), properties: engraving },
      line('IPOD2008RED'),
      line('IPOD2008BLACK'),
    ]);
    expect(order).not.toHaveProperty('customer');
    // Its email would make order create link or create a customer: it follows in a PUT.
    expect(order).not.toHaveProperty('email');
    expect(guestEmail(snapshot, some)).toBe('bob.norman@mail.example.com');
    expect(guestEmail(snapshot, ids)).toBeUndefined();
    expect(notes).toEqual([
      {
        path: '$.line_items[1].variant_id',
        reason: `variant ${old(49148385n)} has no counterpart in the target: restored as a custom line item`,
      },
      {
        path: '$.line_items[2].variant_id',
        reason: `variant ${old(457924702n)} has no counterpart in the target: restored as a custom line item`,
      },
      {
        path: '$.customer',
        reason: `customer ${old(207119551n)} has no counterpart in the target: the order is created without one`,
      },
    ]);
  });

  it.each<[string, (s: JsonObject) => void, JsonObject, string[]]>([
    [
      'a fulfilled order is created fulfilled',
      (s) => Object.assign(s, { fulfillment_status: 'fulfilled' }),
      { fulfillment_status: 'fulfilled' },
      [],
    ],
    ['a partial fulfilment is not written', (s) => Object.assign(s, { fulfillment_status: 'partial' }), {}, []],
    [
      'financial_status is always explicit',
      (s) => Object.assign(s, { financial_status: null }),
      { financial_status: 'pending' },
      [],
    ],
    [
      'a voided, cancelled order keeps its status; cancel follows as a step',
      (s) =>
        Object.assign(s, {
          financial_status: 'voided',
          cancelled_at: '2008-01-11T00:00:00-05:00',
          cancel_reason: 'customer',
        }),
      { financial_status: 'voided' },
      [],
    ],
    [
      'unicode, nulls and a guest',
      (s) => Object.assign(s, { note: 'Grüße 🎁', tags: 'b, a', customer: null, email: null, billing_address: null }),
      { note: 'Grüße 🎁', tags: 'a, b' },
      [],
    ],
    [
      'a gift card line is a plain custom item',
      (s) => Object.assign(lines(s)[0] as JsonObject, { gift_card: true }),
      {},
      ['$.line_items[0]'],
    ],
    [
      "a percentage code's amount is its percentage, from its discount application (served, it is the money taken off)",
      (s) =>
        Object.assign(s, {
          discount_codes: [{ code: 'WELCOME15', amount: '89.55', type: 'percentage' }],
          discount_applications: [
            {
              type: 'discount_code',
              code: 'WELCOME15',
              value: '15.0',
              value_type: 'percentage',
              target_type: 'line_item',
            },
          ],
        }),
      { discount_codes: [{ code: 'WELCOME15', amount: '15.0', type: 'percentage' }] },
      [],
    ],
    [
      'so is the code of an order created through the API, whose application is manual, titled by the code',
      (s) =>
        Object.assign(s, {
          discount_codes: [{ code: 'WELCOME15', amount: '89.55', type: 'percentage' }],
          discount_applications: [{ type: 'manual', title: 'WELCOME15', value: '15.0', value_type: 'percentage' }],
        }),
      { discount_codes: [{ code: 'WELCOME15', amount: '15.0', type: 'percentage' }] },
      [],
    ],
    [
      'a percentage that took off another amount (some lines only) goes as that fixed amount: the totals come first',
      (s) =>
        Object.assign(s, {
          discount_codes: [{ code: 'WELCOME15', amount: '29.85', type: 'percentage' }],
          discount_applications: [
            { type: 'discount_code', code: 'WELCOME15', value: '15.0', value_type: 'percentage' },
          ],
        }),
      { discount_codes: [{ code: 'WELCOME15', amount: '29.85', type: 'fixed_amount' }] },
      ['$.discount_codes[0].type'],
    ],
    [
      'a percentage code without its application goes as the fixed amount it took off',
      (s) =>
        Object.assign(s, {
          discount_codes: [{ code: 'WELCOME15', amount: '29.85', type: 'percentage' }],
          discount_applications: [],
        }),
      { discount_codes: [{ code: 'WELCOME15', amount: '29.85', type: 'fixed_amount' }] },
      ['$.discount_codes[0].type'],
    ],
    [
      'a marker of its own is replaced',
      (s) => Object.assign(s, { note_attributes: [{ name: 'shopsnap_source_id', value: '1' }] }),
      { note_attributes: [{ name: 'shopsnap_source_id', value: source }] },
      [],
    ],
  ])('%s', (_name, edit, expected, notePaths) => {
    const { body, notes } = orderCreateBody(edited(snapshot, edit), ids);
    const order = body.order as JsonObject;
    expect(order).toMatchObject(expected);
    if (!('fulfillment_status' in expected)) expect(order).not.toHaveProperty('fulfillment_status');
    expect(order).not.toHaveProperty('cancelled_at');
    expect(order).not.toHaveProperty('billing_address', null);
    expect(notes.map((note) => note.path)).toEqual(notePaths);
    for (const item of lines(order)) expect(item).not.toHaveProperty('gift_card');
    for (const item of lines(order)) expect(item).not.toHaveProperty('tax_lines');
  });
});

describe('guestEmail', () => {
  it.each<[string, JsonObject, string | undefined]>([
    ['a guest with an email', { customer: null, email: 'guest.7@example.net' }, 'guest.7@example.net'],
    ['a guest without one', { customer: null, email: '' }, undefined],
    ['a guest with a null email', { customer: null, email: null }, undefined],
    ["a customer's order, the customer restored", { email: 'bob.norman@mail.example.com' }, undefined],
  ])('%s', (_name, fields, expected) => {
    const order = edited(snapshot, (s) => Object.assign(s, fields));
    expect(guestEmail(order, ids)).toBe(expected);
    expect((orderCreateBody(order, ids).body.order as JsonObject).email).toBe(
      expected === undefined && fields.customer !== null ? fields.email : undefined,
    );
  });
});

describe('orderUpdate', () => {
  // Recover: the order is still in the shop under its id; it carries no marker.
  const target = structuredClone(snapshot);
  const none = idLookup({});
  const id = snapshot.id as JsonValue;

  it.each<[string, (t: JsonObject) => void, JsonObject | undefined, unknown[], string[]]>([
    ['nothing for an equal order', () => {}, undefined, [], []],
    [
      'the fields its PUT takes',
      (t) => Object.assign(t, { note: 'changed', tags: 'x', email: 'new@example.com', buyer_accepts_marketing: true }),
      {
        id,
        note: null,
        tags: '',
        email: 'bob.norman@mail.example.com',
        buyer_accepts_marketing: false,
      },
      [],
      [],
    ],
    [
      'note attributes, keeping a marker the target carries',
      (t) => Object.assign(t, { note_attributes: [{ name: 'shopsnap_source_id', value: '99' }] }),
      {
        id,
        note_attributes: [
          { name: 'custom engraving', value: 'Happy Birthday' },
          { name: 'colour', value: 'green' },
          { name: 'shopsnap_source_id', value: '99' },
        ],
      },
      [],
      [],
    ],
    [
      'a shipping address',
      (t) => Object.assign(t.shipping_address as JsonObject, { city: 'Köln' }),
      {
        id,
        shipping_address: { ...bob, company: null },
      },
      [],
      [],
    ],
    [
      'a closed order is opened',
      (t) => Object.assign(t, { closed_at: '2030-01-01T00:00:00Z' }),
      undefined,
      [{ action: 'open' }],
      [],
    ],
    [
      'a line item cannot be rolled back',
      (t) => Object.assign(lines(t)[1] as JsonObject, { quantity: 3 }),
      undefined,
      [],
      ['$.line_items[1].quantity'],
    ],
    [
      'nor a billing address or the total',
      (t) => Object.assign(t, { total_price: '1.00', billing_address: null }),
      undefined,
      [],
      ['$.billing_address', '$.total_price'],
    ],
    [
      'nor a cancel',
      (t) => Object.assign(t, { cancelled_at: '2030-01-01T00:00:00Z', cancel_reason: 'other' }),
      undefined,
      [],
      ['$.cancelled', '$.cancel_reason'],
    ],
  ])('%s', (_name, edit, body, steps, fixed) => {
    const update = orderUpdate(snapshot, edited(target, edit), none);
    expect(update.body).toEqual(body === undefined ? undefined : { order: body });
    expect(update.steps).toEqual(steps);
    expect(update.cannotRollBack.map((change) => change.path)).toEqual(fixed);
  });

  it('says why a field cannot be rolled back', () => {
    const update = orderUpdate(
      snapshot,
      edited(target, (t) => Object.assign(t, { name: '#9' })),
      none,
    );
    expect(update.cannotRollBack).toEqual([
      { path: '$.name', before: '#1001', after: '#9', reason: ORDER_FIXED_REASON },
    ]);
    const cancelled = orderUpdate(
      snapshot,
      edited(target, (t) => Object.assign(t, { cancelled_at: '2030-01-01T00:00:00Z' })),
      none,
    );
    expect(cancelled.cannotRollBack[0]?.reason).toBe('a cancelled order cannot be un-cancelled');
  });

  it('a restored order matched by its marker keeps it', () => {
    const marked = withMarker(
      'orders',
      edited(target, (t) => Object.assign(t, { note: 'x' })),
      source,
    );
    expect(orderUpdate(snapshot, marked, none).body).toEqual({ order: { id, note: null } });
  });
});
