import type { JsonObject } from '../../shopify/json.js';
import { SINGULAR } from '../../shopify/resources.js';
import { ShopWriteUnsureError } from '../../source/errors.js';
import type { StepKey } from '../journal.js';
import type { PlanRow } from '../plan.js';
import { customerUpdate } from '../records/customer-bodies.js';
import { orderUpdate } from '../records/order-bodies.js';
import type { OrderStateStep } from '../records/order-states.js';
import { lostVariants, productUpdate } from '../records/product-bodies.js';
import type { RecordUpdate } from '../records/update.js';
import { fetchTarget } from '../shop-reads.js';
import { setOrderStates } from './states.js';
import type { RestoreWriter } from './writer.js';

/**
 * Brings a matched target record (`held`, as the plan saw it) to the snapshot's values: a product first gets back the
 * variants it lost (the variant endpoint), then one PUT with what differs; an order's PUT is followed by its states.
 */
export async function updateRecord(
  w: RestoreWriter,
  row: PlanRow,
  record: JsonObject,
  held: JsonObject | undefined,
  prune: boolean,
): Promise<void> {
  const { resource, id } = row;
  const targetId = row.target_id as string;
  if (held === undefined) return;
  let current = held;
  if (resource === 'products') {
    const lost = lostVariants(record, current, w.ids);
    for (const variant of lost) await recreateVariant(w, id, targetId, variant.sourceId, variant.body);
    // The PUT's variants array is a full set: it must see the variants just made, or it would delete them.
    if (lost.length > 0) current = (await fetchTarget(w.client, 'products', targetId))?.record ?? current;
  }
  const key: StepKey = { step: 'update', resource, id };
  const update: RecordUpdate & { steps?: OrderStateStep[] } =
    resource === 'products'
      ? productUpdate(record, current, w.ids, { prune })
      : resource === 'customers'
        ? customerUpdate(record, current, w.ids)
        : orderUpdate(record, current, w.ids);
  if (update.body !== undefined) {
    await w.write(
      key,
      `${resource}/${targetId}.json`,
      { method: 'PUT', body: update.body, repeatable: true },
      SINGULAR[resource],
    );
    w.journalLine({ kind: 'done', ...key, target_id: targetId });
    w.outcome(resource).updated++;
  }
  if (update.steps !== undefined) await setOrderStates(w, id, update.steps, targetId);
  w.result.written[resource].set(id, targetId);
}

/** A variant the product lost, made again through the variant endpoint; a lost answer is looked up on the product. */
async function recreateVariant(
  w: RestoreWriter,
  productId: string,
  targetId: string,
  variantId: string,
  body: JsonObject,
): Promise<void> {
  const key: StepKey = { step: 'variant', resource: 'products', id: `${productId}/${variantId}` };
  if (w.done(key)) return;
  try {
    const answer = await w.write(
      key,
      `products/${targetId}/variants.json`,
      { method: 'POST', body, repeatable: false },
      'variant',
    );
    w.journalLine({
      kind: 'done',
      ...key,
      target_id: targetId,
      children: { variants: { [variantId]: String(answer.id) } },
    });
    w.ids.set('variants', variantId, String(answer.id));
  } catch (error) {
    if (!(error instanceof ShopWriteUnsureError)) throw error;
    // The product's variants say whether it was made: the update that follows pairs them by option values.
    w.journalLine({ kind: 'absent', ...key });
  }
}
