import { describe, expect, it } from 'vitest';
import { type Classification, classify, type RestoreMode } from '../../../src/restore/records/classify.js';
import { idLookup } from '../../../src/restore/records/ids.js';
import { withMarker } from '../../../src/restore/records/natural-keys.js';
import type { JsonObject } from '../../../src/shopify/json.js';
import type { ResourceName } from '../../../src/shopify/resources.js';
import { ABOVE_2_53, exampleRecord, NEAR_2_63, restoredCopy } from './records.js';

const product = exampleRecord('products', NEAR_2_63);
const customer = exampleRecord('customers', NEAR_2_63);
const order = exampleRecord('orders', NEAR_2_63);
const none = idLookup({});
const restored = restoredCopy(product, ABOVE_2_53);
const marked = withMarker('products', restored.copy, String(product.id));
const edited = (record: JsonObject, fields: JsonObject) => ({ ...structuredClone(record), ...fields });
const manyVariants = edited(product, {
  variants: Array.from({ length: 101 }, (_, k) => ({ id: k + 1, option1: `v${k}`, price: '1.00' })),
});

describe('classify', () => {
  it.each<
    [
      string,
      ResourceName,
      JsonObject,
      JsonObject | undefined,
      RestoreMode,
      { updateExisting?: boolean; prune?: boolean },
      Classification,
    ]
  >([
    ['nothing in the target: create', 'products', product, undefined, 'migrate', {}, { action: 'create' }],
    ['recover, deleted since: create', 'orders', order, undefined, 'recover', {}, { action: 'create' }],
    [
      'no title: skip',
      'products',
      edited(product, { title: ' ' }),
      undefined,
      'migrate',
      {},
      {
        action: 'skip',
        reason: 'no title: Shopify refuses a product without one',
      },
    ],
    [
      'more than 100 variants: skip',
      'products',
      manyVariants,
      undefined,
      'migrate',
      {},
      {
        action: 'skip',
        reason: '101 variants: the 2022-01 API takes at most 100 a product',
      },
    ],
    [
      'a customer without name, email or phone: skip',
      'customers',
      edited(customer, { first_name: null, last_name: '', email: null, phone: null }),
      undefined,
      'migrate',
      {},
      {
        action: 'skip',
        reason: 'no name, email or phone: Shopify refuses a customer without one',
      },
    ],
    [
      'an order without line items: skip',
      'orders',
      edited(order, { line_items: [] }),
      undefined,
      'recover',
      {},
      {
        action: 'skip',
        reason: 'no line items: Shopify refuses an order without one',
      },
    ],
    ['a restored copy: unchanged', 'products', product, marked, 'migrate', {}, { action: 'unchanged' }],
    [
      'recover, the same record: unchanged',
      'customers',
      customer,
      structuredClone(customer),
      'recover',
      {},
      { action: 'unchanged' },
    ],
    [
      'migrate, matched with other values: skip unless --update-existing',
      'products',
      product,
      edited(marked, { title: 'x' }),
      'migrate',
      {},
      {
        action: 'skip',
        reason: 'exists in the target with other values; --update-existing brings it to the snapshot',
        diff: [{ path: '$.title', before: 'IPod Nano - 8GB', after: 'x' }],
      },
    ],
    [
      'migrate --update-existing: update',
      'products',
      product,
      edited(marked, { title: 'x' }),
      'migrate',
      { updateExisting: true },
      {
        action: 'update',
        diff: [{ path: '$.title', before: 'IPod Nano - 8GB', after: 'x' }],
        cannotRollBack: [],
      },
    ],
    [
      'recover, changed: update',
      'customers',
      customer,
      edited(customer, { note: 'x' }),
      'recover',
      {},
      {
        action: 'update',
        diff: [{ path: '$.note', before: null, after: 'x' }],
        cannotRollBack: [],
      },
    ],
    [
      'migrate, a record restored from another source: conflict',
      'products',
      product,
      withMarker('products', restored.copy, '12'),
      'migrate',
      {},
      {
        action: 'conflict',
        reason: 'the matching target record was restored from source record 12',
      },
    ],
  ])('%s', (_name, resource, snapshot, target, mode, options, expected) => {
    expect(classify(resource, snapshot, target, mode, { ids: restored.ids, ...options })).toEqual(expected);
  });

  it('an order differing only in what its PUT cannot change: skip, with what cannot be rolled back', () => {
    const target = edited(order, { total_price: '1.00' });
    expect(classify('orders', order, target, 'recover', { ids: none })).toEqual({
      action: 'skip',
      reason: 'differs only in fields that cannot be rolled back',
      diff: [{ path: '$.total_price', before: '598.94', after: '1.00' }],
      cannotRollBack: [expect.objectContaining({ path: '$.total_price' })],
    });
  });

  it('an order to close is an update (a state step), with what else cannot be rolled back', () => {
    const target = edited(order, { closed_at: '2030-01-01T00:00:00Z', name: '#9' });
    expect(classify('orders', order, target, 'recover', { ids: none })).toMatchObject({
      action: 'update',
      cannotRollBack: [expect.objectContaining({ path: '$.name' })],
    });
  });

  it('a product that lost a variant is an update (the variant is re-created)', () => {
    const target = edited(product, { variants: (product.variants as JsonObject[]).slice(1) });
    expect(classify('products', product, target, 'recover', { ids: none })).toMatchObject({ action: 'update' });
  });

  it('a variant added since is kept without --prune (skip, reported) and deleted with it', () => {
    const extra = { ...(product.variants as JsonObject[])[0], id: 5, option1: 'Gold' };
    const target = edited(product, { variants: [...(product.variants as JsonObject[]), extra] });
    expect(classify('products', product, target, 'recover', { ids: none })).toMatchObject({
      action: 'skip',
      cannotRollBack: [
        expect.objectContaining({
          path: '$.variants[4]',
          reason: 'the snapshot does not have it: kept (--prune deletes it)',
        }),
      ],
    });
    expect(classify('products', product, target, 'recover', { ids: none, prune: true })).toMatchObject({
      action: 'update',
      cannotRollBack: [],
    });
  });
});
