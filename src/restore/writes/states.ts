import { ShopHttpError } from '../../source/errors.js';
import type { StepKey } from '../journal.js';
import type { OrderStateStep } from '../records/order-states.js';
import type { RestoreWriter } from './writer.js';

/** An order's states in order; each journaled, none sent again once done. A cancel found already done is done. */
export async function setOrderStates(
  w: RestoreWriter,
  id: string,
  steps: readonly OrderStateStep[],
  targetId: string,
): Promise<void> {
  for (const step of steps) {
    const key: StepKey = { step: step.action, resource: 'orders', id };
    if (w.done(key)) continue;
    const body = step.action === 'cancel' ? step.body : undefined;
    try {
      await w.write(key, `orders/${targetId}/${step.action}.json`, { method: 'POST', body, repeatable: true }, 'order');
    } catch (error) {
      // A cancel sent twice (its first answer lost) is refused as already done: it is done.
      if (!(step.action === 'cancel' && error instanceof ShopHttpError && /already been cancel/i.test(error.message))) {
        throw error;
      }
    }
    w.journalLine({ kind: 'done', ...key, target_id: targetId });
    w.outcome('orders').states[step.action]++;
  }
}
