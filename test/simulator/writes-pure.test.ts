import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { FaultPlan } from '../../src/simulator/faults.js';
import type { FaultOptions } from '../../src/simulator/options.js';
import { ReplyError } from '../../src/simulator/reply.js';
import { customerAddress, placeOf } from '../../src/simulator/writes/addresses.js';
import { noteAttributes, timeInput } from '../../src/simulator/writes/envelope.js';
import { uniqueHandle } from '../../src/simulator/writes/handles.js';
import { readImageFile } from '../../src/simulator/writes/image-file.js';
import { linkImages, replaceImages } from '../../src/simulator/writes/images.js';
import { SlidingWindow } from '../../src/simulator/writes/limits.js';
import { readMetafields } from '../../src/simulator/writes/metafields.js';
import { financialStatusOf } from '../../src/simulator/writes/order-create.js';
import { allocateDiscount, type Line } from '../../src/simulator/writes/order-lines.js';
import { discountCodes, orderPhone } from '../../src/simulator/writes/order-record.js';
import { newVariant, refuseDuplicateOptions, replaceVariants } from '../../src/simulator/writes/variants.js';

/** The status and body a handler's ReplyError would answer with. */
function refusal(run: () => unknown): { status: number; body: JsonObject } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ReplyError) return { status: error.error.status, body: error.error.body };
    throw error;
  }
}

describe('product handles', () => {
  it.each([
    [[], 'potion', 'potion'],
    [['potion'], 'potion', 'potion-1'],
    [['potion', 'potion-1', 'potion-2'], 'potion', 'potion-3'],
    [['potion', 'potion-2'], 'potion', 'potion-1'],
    [['potion-1'], 'potion', 'potion'],
  ])('taken %j, wanted %s → %s', (taken, wanted, handle) => {
    expect(uniqueHandle((h) => taken.includes(h), wanted)).toBe(handle);
  });
});

describe('address places', () => {
  it.each([
    [{ country: 'CA', province: 'QC' }, 'Canada', 'CA', 'Quebec', 'QC'],
    [{ country: 'canada', province: 'quebec' }, 'Canada', 'CA', 'Quebec', 'QC'],
    [{ country: 'CA', province: 'ON' }, 'Canada', 'CA', 'ON', null],
    [{ country_code: 'US', province_code: 'KY' }, 'United States', 'US', 'Kentucky', 'KY'],
    [{ country: 'Atlantis', province: 'Deep' }, 'Atlantis', null, 'Deep', null],
    [{}, null, null, null, null],
  ])('%j → %s/%s, %s/%s', (input, country, countryCode, province, provinceCode) => {
    expect(placeOf(input)).toEqual({ country, country_code: countryCode, province, province_code: provinceCode });
  });
});

describe("a customer address's names", () => {
  const customer = { first: 'Zoë', last: 'Ödegaard' };
  const ids = { id: 1, customerId: 2 };
  it.each([
    [{}, ['Zoë', 'Ödegaard']],
    [{ first_name: 'Ann', last_name: 'Lee' }, ['Ann', 'Lee']],
    [{ first_name: null, last_name: null }, [null, null]],
    [{ first_name: null }, [null, 'Ödegaard']],
  ])('%j: %j', (input, names) => {
    const address = customerAddress(input as JsonObject, ids, customer, true);
    expect([address.first_name, address.last_name]).toEqual(names);
  });
});

describe('financial status of a created order', () => {
  const sale = (paidCents: number, authorized = false) => ({ paidCents, authorized });
  it.each([
    [undefined, undefined, 'paid'],
    ['pending', undefined, 'pending'],
    ['refunded', sale(1000), 'refunded'],
    [undefined, sale(1000), 'paid'],
    [undefined, sale(400), 'partially_paid'],
    [undefined, sale(0, true), 'authorized'],
    [undefined, sale(0), 'pending'],
  ])('given %s with transactions %j → %s', (given, transactions, status) => {
    expect(financialStatusOf(given, transactions, 1000)).toBe(status);
  });

  it('refuses a status Shopify does not know', () => {
    expect(refusal(() => financialStatusOf('settled', undefined, 1000))).toEqual({
      status: 422,
      body: { errors: { financial_status: ['is not included in the list'] } },
    });
  });
});

describe('timestamps and note attributes a client sets', () => {
  it.each([
    ['2021-03-04T05:06:07-05:00', Date.parse('2021-03-04T10:06:07Z')],
    ['2021-03-04T10:06:07Z', Date.parse('2021-03-04T10:06:07Z')],
    [undefined, undefined],
    [null, undefined],
  ])('%s → %s', (text, ms) => {
    expect(timeInput(text, 'processed_at')).toBe(ms);
  });

  it('answers 422 for an unreadable time', () => {
    expect(refusal(() => timeInput('yesterday', 'processed_at'))?.body).toEqual({
      errors: { processed_at: ['is invalid'] },
    });
  });

  it('keeps note attributes as names and text values', () => {
    expect(noteAttributes([{ name: 'a', value: 1 }, { name: 'b', value: null }, 'x'])).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: null },
    ]);
    expect(noteAttributes(undefined)).toBeUndefined();
  });
});

describe('inline metafields', () => {
  it.each([
    [[{ namespace: 'shopsnap', key: 'source_id', value: '42', type: 'single_line_text_field' }], 1],
    [[{ namespace: 'global', key: 'new', value: 'v', value_type: 'string' }], 1],
    [undefined, 0],
  ])('accepts %j', (value, count) => {
    expect(readMetafields(value)).toHaveLength(count);
  });

  it.each([
    [[{ key: 'k', value: 'v', type: 't' }]],
    [[{ namespace: 'n', key: '', value: 'v', type: 't' }]],
    [[{ namespace: 'n', key: 'k', value: null, type: 't' }]],
    [[{ namespace: 'n', key: 'k', value: 'v' }]],
  ])('refuses %j with a 422', (value) => {
    expect(refusal(() => readMetafields(value))).toEqual({
      status: 422,
      body: { errors: { metafields: ['is invalid'] } },
    });
  });
});

describe('variant arrays of a product PUT', () => {
  const variant = (id: number, option1: string, price = '1.00'): JsonObject => ({
    ...newVariant({ option1, price }, { id, productId: 1, inventoryItemId: id + 1000 }, 'then', 'USD'),
    position: id,
  });
  let next = 100;
  const make = (input: JsonObject) => newVariant(input, { id: next++, productId: 1, inventoryItemId: 0 }, 'now', 'USD');
  const existing = [variant(1, 'Red'), variant(2, 'Blue'), variant(3, 'Green')];

  it.each<[string, JsonObject[], number[], number[], number[]]>([
    ['all ids kept, one price changed', [{ id: 1 }, { id: 2, price: '5.00' }, { id: 3 }], [1, 2, 3], [], []],
    ['an id left out is deleted', [{ id: 3 }, { id: 1 }], [3, 1], [], [2]],
    [
      'no id, options of a variant not named: that variant',
      [{ id: 1 }, { option1: 'Blue', price: '9.00' }],
      [1, 2],
      [],
      [3],
    ],
    ['no id, new options: created', [{ id: 1 }, { option1: 'Pink' }], [1, 100], [100], [2, 3]],
  ])('%s', (_name, inputs, ids, created, removed) => {
    next = 100;
    const result = replaceVariants(existing, inputs, make, 'now', 'USD');
    expect(result.variants.map((v) => v.id)).toEqual(ids);
    expect(result.variants.map((v) => v.position)).toEqual(ids.map((_, k) => k + 1));
    expect(result.created.map((v) => v.id)).toEqual(created);
    expect(result.removed.map((v) => v.id)).toEqual(removed);
  });

  it('updates the variants it keeps, and stamps only those that changed', () => {
    const { variants } = replaceVariants(existing, [{ id: 1 }, { id: 2, price: '5.00' }], make, 'now', 'USD');
    expect(variants.map((v) => [v.price, v.updated_at])).toEqual([
      ['1.00', 'then'],
      ['5.00', 'now'],
    ]);
    expect(existing[1]?.price).toBe('1.00');
  });

  it('refuses ids that are not the product’s, and two variants with the same options', () => {
    expect(refusal(() => replaceVariants(existing, [{ id: 1 }, { id: 77 }], make, 'now', 'USD'))?.body).toEqual({
      errors: {
        base: ['Variants have not been changed. The following IDs do not exist or do not belong to the product: 77'],
      },
    });
    expect(refusal(() => refuseDuplicateOptions([variant(1, 'Red'), variant(2, 'Red')]))?.body).toEqual({
      errors: { base: ["The variant 'Red' already exists. Please change at least one option value."] },
    });
  });
});

describe('image arrays of a product PUT', () => {
  const image = (id: number): JsonObject => ({
    id,
    position: id,
    alt: null,
    src: `https://cdn/x${id}.jpg`,
    variant_ids: [],
  });
  const create = (input: JsonObject, position: number) => ({
    id: 900,
    position,
    alt: input.alt ?? null,
    variant_ids: [],
  });
  const now = { text: 'now', ms: 0 };

  it.each<[string, JsonObject[], number[]]>([
    ['[] clears them', [], []],
    [
      'ids kept in the order given, one added',
      [{ id: 2 }, { src: 'https://example.com/a.png' }, { id: 1 }],
      [2, 900, 1],
    ],
  ])('%s', (_name, inputs, ids) => {
    expect(replaceImages([image(1), image(2)], inputs, create, now).map((i) => i.id)).toEqual(ids);
  });

  it('refuses an image id that is not the product’s', () => {
    expect(refusal(() => replaceImages([image(1)], [{ id: 5 }], create, now))?.status).toBe(422);
  });

  it('ties variants to images from variant_ids and clears links to images that are gone', () => {
    const variants: JsonObject[] = [
      { id: 10, image_id: 1 },
      { id: 11, image_id: null },
      { id: 12, image_id: 3 },
    ];
    const images = [image(1), image(2)];
    linkImages(variants, images, [{ id: 1 }, { id: 2, variant_ids: [10, 11] }]);
    expect(variants.map((v) => v.image_id)).toEqual([2, 2, null]);
    expect(images.map((i) => i.variant_ids)).toEqual([[], [10, 11]]);
  });
});

describe('order discount codes', () => {
  it.each([
    [[{ code: 'TENOFF', amount: '10.00', type: 'fixed_amount' }], 19900, 0, [1000]],
    [[{ code: 'FAKE30', amount: '9.00', type: 'percentage' }], 19900, 0, [1791]],
    [[{ code: 'BIG', amount: '500.00' }], 19900, 0, [19900]],
    [[{ code: 'SHIP', amount: '100', type: 'shipping' }], 19900, 500, [500]],
  ])('%j on %i (shipping %i) takes %j off', (codes, items, shipping, cents) => {
    expect(discountCodes(codes, items, shipping).map((code) => code.cents)).toEqual(cents);
  });

  it('refuses an unknown type or amount', () => {
    expect(refusal(() => discountCodes([{ code: 'X', type: 'bogo' }], 100, 0))?.status).toBe(422);
    expect(refusal(() => discountCodes([{ code: 'X', amount: 'lots' }], 100, 0))?.status).toBe(422);
  });
});

describe('order phones', () => {
  it.each([
    ['18885551234', '+18885551234'],
    ['8885551234', '+18885551234'],
    ['+15145556677', '+15145556677'],
    ['+1(502)-459-2181', '+1(502)-459-2181'],
    [null, null],
  ])('%s → %s', (given, served) => {
    expect(orderPhone(given)).toBe(served);
  });
});

describe('uploaded image files', () => {
  const jpeg = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x02, 0x00, 0x03, 0x03, 0x01, 0x22, 0x00,
  ]).toString('base64');
  it.each([
    ['a GIF with a line break', 'R0lGODlhAQABAIAAAAAAAAAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==\n', 'gif', 1, 1],
    ['a PNG', Buffer.from('89504e470d0a1a0a0000000d494844520000000300000002', 'hex').toString('base64'), 'png', 3, 2],
    ['a JPEG', jpeg, 'jpg', 3, 2],
    ['bytes of no known kind', Buffer.from('hello').toString('base64'), 'jpg', 0, 0],
  ])('%s', (_name, attachment, extension, width, height) => {
    expect(readImageFile(attachment)).toMatchObject({ extension, width, height });
    expect(readImageFile(attachment)?.hashedName).toMatch(new RegExp(`^[0-9a-f]{32}\\.${extension}$`));
  });

  it('refuses what is not base64', () => {
    expect(readImageFile('not base64!')).toBeUndefined();
    expect(readImageFile('')).toBeUndefined();
  });
});

describe('order discounts spread over the lines', () => {
  const line = (cents: number) => ({ record: {}, cents }) as unknown as Line;
  it.each([
    [[1000, 1000], 300, ['1.50', '1.50']],
    [[1000, 3000], 1000, ['2.50', '7.50']],
    [[333, 333, 334], 100, ['0.33', '0.33', '0.34']],
  ])('%j less %i', (amounts, discount, shares) => {
    const lines = amounts.map(line);
    allocateDiscount(lines, discount, 'USD');
    expect(lines.map((l) => (l.record.discount_allocations as JsonObject[])[0]?.amount)).toEqual(shares);
  });
});

describe('sliding windows of the write limits', () => {
  it('counts creations within the window only', () => {
    let now = 0;
    const window = new SlidingWindow(5, 60_000, () => now);
    window.record(4);
    expect(window.room()).toBe(1);
    now = 30_000;
    window.record(1);
    expect(window.room()).toBe(0);
    now = 60_001;
    expect(window.room()).toBe(4);
    now = 90_001;
    expect(window.room()).toBe(5);
  });
});

describe('lost answers', () => {
  const lost = (knob: FaultOptions['lostAnswers'], labels: string[]) => {
    const plan = new FaultPlan({ lostAnswers: knob }, 1);
    return labels.map((label) => plan.lostAnswer(label) ?? '-');
  };
  const writes = ['POST /orders.json', 'POST /customers.json', 'POST /orders.json', 'PUT /orders/{id}.json'];

  it.each([
    ['none', undefined, ['-', '-', '-', '-']],
    ['ordinals', { writes: [2, 4] }, ['-', 'reset', '-', 'reset']],
    ['a label', { writes: ['POST /orders.json'], as: 502 as const }, [502, '-', 502, '-']],
    ['a label and its ordinal', { writes: ['POST /orders.json#2'], as: 504 as const }, ['-', '-', 504, '-']],
    ['every write', { rate: 1 }, ['reset', 'reset', 'reset', 'reset']],
  ])('%s', (_name, knob, expected) => {
    expect(lost(knob, writes)).toEqual(expected);
  });

  it('loses a seeded share, the same writes for the same seed', () => {
    const labels = Array.from({ length: 400 }, () => 'POST /orders.json');
    const first = lost({ rate: 0.25 }, labels);
    expect(lost({ rate: 0.25 }, labels)).toEqual(first);
    const share = first.filter((answer) => answer === 'reset').length / labels.length;
    expect(share).toBeGreaterThan(0.18);
    expect(share).toBeLessThan(0.32);
  });
});
