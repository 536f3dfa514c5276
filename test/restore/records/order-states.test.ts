import { describe, expect, it } from 'vitest';
import { type OrderStateStep, type OrderStates, orderStateSteps } from '../../../src/restore/records/order-states.js';
import type { JsonObject } from '../../../src/shopify/json.js';

const at = '2008-01-12T10:00:00-05:00';
const order = (fields: JsonObject): JsonObject => ({
  id: 9223372036854775807n,
  cancelled_at: null,
  cancel_reason: null,
  closed_at: null,
  fulfillment_status: null,
  fulfillments: [],
  ...fields,
});
const cancel = (reason: string): OrderStateStep => ({ action: 'cancel', body: { reason, email: false } });
const unfulfillable = 'Shopify refuses to cancel an order with fulfilments, and this one is fulfilled';

describe('orderStateSteps', () => {
  it.each<[string, JsonObject, JsonObject | undefined, OrderStates]>([
    ['an open order, created', order({}), undefined, { steps: [], cannot: [] }],
    [
      'a closed order, created: close',
      order({ closed_at: at }),
      undefined,
      { steps: [{ action: 'close' }], cannot: [] },
    ],
    [
      'a cancelled and closed order, created: cancel (no email, refund or restock), then close',
      order({ cancelled_at: at, cancel_reason: 'customer', closed_at: at }),
      undefined,
      { steps: [cancel('customer'), { action: 'close' }], cannot: [] },
    ],
    [
      'a cancelled order without a reason: other',
      order({ cancelled_at: at }),
      undefined,
      { steps: [cancel('other')], cannot: [] },
    ],
    [
      'a reason the 2022-01 API does not take: other, reported',
      order({ cancelled_at: at, cancel_reason: 'staff' }),
      undefined,
      {
        steps: [cancel('other')],
        cannot: [
          {
            field: 'cancel_reason',
            reason:
              "the API takes only customer, inventory, fraud, declined, other as a reason; 'staff' is restored as other",
          },
        ],
      },
    ],
    [
      'a cancelled, fulfilled order (created fulfilled): no cancel, reported',
      order({ cancelled_at: at, cancel_reason: 'fraud', fulfillment_status: 'fulfilled', closed_at: at }),
      undefined,
      { steps: [{ action: 'close' }], cannot: [{ field: 'cancelled', reason: unfulfillable }] },
    ],
    [
      'a cancelled, partly fulfilled order (created unfulfilled): cancel',
      order({ cancelled_at: at, cancel_reason: 'inventory', fulfillment_status: 'partial' }),
      undefined,
      { steps: [cancel('inventory')], cannot: [] },
    ],
    [
      'recover: the target has a fulfilment now',
      order({ cancelled_at: at, cancel_reason: 'customer' }),
      order({ fulfillments: [{ id: 1 }] }),
      { steps: [], cannot: [{ field: 'cancelled', reason: unfulfillable }] },
    ],
    [
      'recover: closed in the target, open in the snapshot: open',
      order({}),
      order({ closed_at: at }),
      { steps: [{ action: 'open' }], cannot: [] },
    ],
    [
      'recover: cancelled in the target only: cannot un-cancel',
      order({}),
      order({ cancelled_at: at, cancel_reason: 'other' }),
      { steps: [], cannot: [{ field: 'cancelled', reason: 'a cancelled order cannot be un-cancelled' }] },
    ],
    [
      'recover: cancelled on both sides for other reasons',
      order({ cancelled_at: at, cancel_reason: 'fraud' }),
      order({ cancelled_at: at, cancel_reason: 'other' }),
      {
        steps: [],
        cannot: [
          { field: 'cancel_reason', reason: 'the reason is set only by cancelling, and the order is cancelled' },
        ],
      },
    ],
    [
      'recover: cancelled and closed in the snapshot, neither in the target',
      order({ cancelled_at: at, cancel_reason: 'declined', closed_at: at }),
      order({}),
      { steps: [cancel('declined'), { action: 'close' }], cannot: [] },
    ],
    [
      'recover: the same states',
      order({ closed_at: at }),
      order({ closed_at: '2030-01-01T00:00:00Z' }),
      { steps: [], cannot: [] },
    ],
  ])('%s', (_name, snapshot, target, expected) => {
    expect(orderStateSteps(snapshot, target)).toEqual(expected);
  });
});
