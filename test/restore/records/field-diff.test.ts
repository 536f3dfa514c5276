import { describe, expect, it } from 'vitest';
import { fieldDiff } from '../../../src/restore/records/field-diff.js';
import { type IdLookup, idLookup } from '../../../src/restore/records/ids.js';
import { withMarker } from '../../../src/restore/records/natural-keys.js';
import type { JsonObject } from '../../../src/shopify/json.js';
import { ABOVE_2_53, edited, exampleRecord, NEAR_2_63, renumbered, restoredCopy } from './records.js';

type Edit = (record: JsonObject) => void;
const variants = (record: JsonObject) => record.variants as JsonObject[];
const images = (record: JsonObject) => record.images as JsonObject[];
const lines = (record: JsonObject) => record.line_items as JsonObject[];
const addresses = (record: JsonObject) => record.addresses as JsonObject[];
const either = (a: IdLookup, b: IdLookup): IdLookup => ({
  target: (kind, id) => a.target(kind, id) ?? b.target(kind, id),
});

/** What Shopify serves for a product restored into another shop: new ids, its own stamps, its CDN, the marker. */
function restoredProduct(snapshot: JsonObject) {
  const { copy, ids } = restoredCopy(snapshot, ABOVE_2_53);
  const target = withMarker('products', copy, String(snapshot.id));
  target.created_at = '2030-01-01T00:00:00+09:00';
  target.updated_at = '2030-01-01T00:00:00+09:00';
  target.published_at = '2030-01-01T00:00:00+09:00';
  for (const variant of variants(target)) {
    variant.price = '199.0';
    variant.inventory_quantity = 0;
    variant.title = 'renamed by Shopify';
  }
  for (const image of images(target)) {
    image.src = `https://cdn.shopify.com/s/files/target/${String(image.id)}.png`;
    image.width = 1;
  }
  target.tags = 'Music, MP3, Flash Memory, Emotive';
  return { target, ids };
}

describe('fieldDiff: products', () => {
  const snapshot = exampleRecord('products', NEAR_2_63);
  const { target, ids } = restoredProduct(snapshot);

  it('a restored copy with new ids beyond 2^53 and its own stamps, CDN and marker is equal', () => {
    expect(typeof snapshot.id).toBe('bigint');
    expect(fieldDiff('products', snapshot, target, ids)).toEqual([]);
  });

  it('a product matched by handle, whose variants restore did not create, pairs them by their options', () => {
    const { copy } = restoredCopy(snapshot, ABOVE_2_53);
    copy.variants = [...variants(copy)].reverse();
    expect(fieldDiff('products', snapshot, copy, idLookup({}))).toEqual([]);
  });

  it.each<[string, Edit, Array<{ path: string; before: unknown; after: unknown }>]>([
    [
      'a title',
      (t) => {
        t.title = 'Ünïcode ✓';
      },
      [{ path: '$.title', before: 'IPod Nano - 8GB', after: 'Ünïcode ✓' }],
    ],
    [
      'unpublished',
      (t) => {
        t.published_at = null;
      },
      [{ path: '$.published', before: true, after: false }],
    ],
    [
      'a tag less',
      (t) => {
        t.tags = 'Emotive, MP3, Music';
      },
      [{ path: '$.tags', before: 'Emotive, Flash Memory, MP3, Music', after: 'Emotive, MP3, Music' }],
    ],
    [
      'a null body',
      (t) => {
        t.body_html = null;
      },
      [{ path: '$.body_html', before: snapshot.body_html, after: null }],
    ],
    [
      'a price',
      (t) => {
        (variants(t)[1] as JsonObject).price = '189.00';
      },
      [{ path: '$.variants[1].price', before: '199.00', after: '189.00' }],
    ],
    [
      'a variant lost',
      (t) => {
        variants(t).splice(3, 1);
      },
      [{ path: '$.variants[3]', before: expect.objectContaining({ option1: 'Black' }), after: undefined }],
    ],
    [
      'a variant more',
      (t) => {
        variants(t).push({ ...(variants(t)[0] as JsonObject), id: 5, option1: 'Gold' });
      },
      [{ path: '$.variants[4]', before: undefined, after: expect.objectContaining({ option1: 'Gold' }) }],
    ],
    [
      'an image unlinked',
      (t) => {
        (images(t)[1] as JsonObject).variant_ids = [];
        (variants(t)[0] as JsonObject).image_id = null;
      },
      [
        { path: '$.variants[0].image_id', before: String(ABOVE_2_53 + 6n), after: null },
        { path: '$.images[1].variant_ids[0]', before: String(ABOVE_2_53 + 1n), after: undefined },
      ],
    ],
    [
      'an image lost',
      (t) => {
        images(t).splice(2, 1);
      },
      [{ path: '$.images[2]', before: expect.objectContaining({ position: 3 }), after: undefined }],
    ],
    [
      'an option renamed',
      (t) => {
        ((t.options as JsonObject[])[0] as JsonObject).name = 'Colour';
      },
      [{ path: '$.options[0].name', before: 'Color', after: 'Colour' }],
    ],
  ])('names %s', (_name, edit, expected) => {
    expect(fieldDiff('products', snapshot, edited(target, edit), ids)).toEqual(expected);
  });
});

describe('fieldDiff: customers', () => {
  const snapshot = edited(exampleRecord('customers', NEAR_2_63), (s) => {
    s.first_name = 'Zoë';
    s.addresses = [
      { ...(addresses(s)[0] as JsonObject), id: 9223372036854775000n, default: false, city: 'Köln' },
      ...addresses(s),
    ];
  });
  const { copy, ids } = restoredCopy(snapshot, ABOVE_2_53);
  const target = edited(withMarker('customers', copy, String(snapshot.id)), (t) => {
    t.email = 'Bob.Norman@MAIL.example.com';
    t.phone = '+1 (613) 612-0707';
    t.addresses = [...addresses(t)].reverse();
    t.state = 'enabled';
    t.orders_count = 0;
    delete t.note;
  });

  it('a restored copy is equal: email case, phone punctuation, default address first, absent as null', () => {
    expect(fieldDiff('customers', snapshot, target, ids)).toEqual([]);
  });

  it.each<[string, Edit, Array<{ path: string; before: unknown; after: unknown }>]>([
    [
      'another email',
      (t) => {
        t.email = 'bob@example.com';
      },
      [{ path: '$.email', before: 'bob.norman@mail.example.com', after: 'bob@example.com' }],
    ],
    [
      'a city',
      (t) => {
        (addresses(t)[1] as JsonObject).city = 'Bonn';
      },
      [{ path: '$.addresses[1].city', before: 'Köln', after: 'Bonn' }],
    ],
    [
      'an address lost',
      (t) => {
        addresses(t).pop();
      },
      [{ path: '$.addresses[1]', before: expect.objectContaining({ city: 'Köln' }), after: undefined }],
    ],
    [
      'a note',
      (t) => {
        t.note = 'VIP';
      },
      [{ path: '$.note', before: null, after: 'VIP' }],
    ],
  ])('names %s', (_name, edit, expected) => {
    expect(fieldDiff('customers', snapshot, edited(target, edit), ids)).toEqual(expected);
  });
});

describe('fieldDiff: orders', () => {
  const product = restoredCopy(exampleRecord('products', NEAR_2_63), ABOVE_2_53);
  const customer = restoredCopy(exampleRecord('customers', NEAR_2_63), ABOVE_2_53 + 1000n);
  const snapshot = exampleRecord('orders', NEAR_2_63);
  const own = restoredCopy(snapshot, ABOVE_2_53 + 2000n);
  const ids = either(either(product.ids, customer.ids), own.ids);
  const target = edited(withMarker('orders', own.copy, String(snapshot.id)), (t) => {
    Object.assign(t, renumbered(t, new Map([...product.moved, ...customer.moved])));
    t.processed_at = '2008-01-10T17:00:00+01:00';
    t.total_price = '598.940';
    t.order_number = 1;
    t.source_name = 'shopsnap-restore';
    t.refunds = [];
    t.fulfillments = [];
    t.gateway = '';
    for (const line of lines(t)) line.tax_lines = [];
  });

  it('a restored copy is equal: line items at the mapped variants, the mapped customer, the same instant', () => {
    expect((lines(target)[0] as JsonObject).variant_id).toBe(ABOVE_2_53 + 3n);
    expect(fieldDiff('orders', snapshot, target, ids)).toEqual([]);
  });

  it('a line item whose variant has no counterpart is expected as a custom line item', () => {
    const custom = edited(target, (t) => {
      Object.assign(lines(t)[2] as JsonObject, { variant_id: null, product_id: null });
    });
    const gone = String(457924702n + NEAR_2_63);
    const withoutVariant: IdLookup = {
      target: (kind, id) => (kind === 'variants' && id === gone ? undefined : ids.target(kind, id)),
    };
    expect(fieldDiff('orders', snapshot, custom, withoutVariant)).toEqual([]);
    expect(fieldDiff('orders', snapshot, custom, ids)).toEqual([
      { path: '$.line_items[2].variant_id', before: String(ABOVE_2_53 + 4n), after: null },
      { path: '$.line_items[2].product_id', before: String(ABOVE_2_53), after: null },
    ]);
  });

  it("a variant's line takes its title, SKU and weight from the variant; a custom line keeps its own", () => {
    const renamed = edited(target, (t) => {
      for (const line of lines(t)) Object.assign(line, { title: 'Renamed — ünï', sku: 'NEW', grams: 1 });
      Object.assign(lines(t)[2] as JsonObject, { variant_id: null, product_id: null });
    });
    const gone = String(457924702n + NEAR_2_63);
    const withoutVariant: IdLookup = {
      target: (kind, id) => (kind === 'variants' && id === gone ? undefined : ids.target(kind, id)),
    };
    expect(fieldDiff('orders', snapshot, renamed, withoutVariant)).toEqual([
      { path: '$.line_items[2].title', before: 'IPod Nano - 8gb', after: 'Renamed — ünï' },
      { path: '$.line_items[2].sku', before: 'IPOD2008BLACK', after: 'NEW' },
      { path: '$.line_items[2].grams', before: 200, after: 1 },
    ]);
  });

  it('recover: the same ids in the same shop are equal without any map', () => {
    expect(fieldDiff('orders', snapshot, structuredClone(snapshot), idLookup({}))).toEqual([]);
  });

  it('a customer restore did not map is restored as none, as a guest order is: a customer the shop gave it differs', () => {
    const other = edited(target, (t) => {
      (t.customer as JsonObject).id = 5;
    });
    const guest = edited(snapshot, (s) => Object.assign(s, { customer: null }));
    const none = edited(target, (t) => Object.assign(t, { customer: null }));
    expect(fieldDiff('orders', snapshot, none, either(product.ids, own.ids))).toEqual([]);
    expect(fieldDiff('orders', guest, none, ids)).toEqual([]);
    for (const unmapped of [snapshot, guest]) {
      expect(fieldDiff('orders', unmapped, other, either(product.ids, own.ids))).toEqual([
        { path: '$.customer', before: null, after: '5' },
      ]);
    }
    expect(fieldDiff('orders', snapshot, other, ids)).toEqual([
      { path: '$.customer', before: String(ABOVE_2_53 + 1000n), after: '5' },
    ]);
  });

  it.each<[string, Edit, Array<{ path: string; before: unknown; after: unknown }>]>([
    [
      'cancelled',
      (t) => Object.assign(t, { cancelled_at: '2030-01-01T00:00:00Z', cancel_reason: 'customer' }),
      [
        { path: '$.cancelled', before: false, after: true },
        { path: '$.cancel_reason', before: null, after: 'customer' },
      ],
    ],
    [
      'closed',
      (t) => {
        t.closed_at = '2030-01-01T00:00:00Z';
      },
      [{ path: '$.closed', before: false, after: true }],
    ],
    [
      'another total',
      (t) => {
        t.total_price = '598.95';
      },
      [{ path: '$.total_price', before: '598.94', after: '598.95' }],
    ],
    [
      'another time',
      (t) => {
        t.processed_at = '2008-01-10T11:00:01-05:00';
      },
      [{ path: '$.processed_at', before: '2008-01-10T11:00:00-05:00', after: '2008-01-10T11:00:01-05:00' }],
    ],
    [
      'a line quantity',
      (t) => {
        (lines(t)[1] as JsonObject).quantity = 2;
      },
      [{ path: '$.line_items[1].quantity', before: 1, after: 2 }],
    ],
    [
      'a note attribute',
      (t) => {
        (t.note_attributes as JsonObject[]).shift();
      },
      [
        { path: '$.note_attributes[0].name', before: 'custom engraving', after: 'colour' },
        { path: '$.note_attributes[0].value', before: 'Happy Birthday', after: 'green' },
        { path: '$.note_attributes[1]', before: { name: 'colour', value: 'green' }, after: undefined },
      ],
    ],
    [
      'fulfilled',
      (t) => {
        t.fulfillment_status = 'fulfilled';
      },
      [{ path: '$.fulfillment_status', before: null, after: 'fulfilled' }],
    ],
    [
      'partly fulfilled (not restorable, not compared)',
      (t) => {
        t.fulfillment_status = 'partial';
      },
      [],
    ],
  ])('names %s', (_name, edit, expected) => {
    expect(fieldDiff('orders', snapshot, edited(target, edit), ids)).toEqual(expected);
  });
});
