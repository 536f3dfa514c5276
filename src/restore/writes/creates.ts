import type { JsonObject } from '../../shopify/json.js';
import { type ResourceName, SINGULAR } from '../../shopify/resources.js';
import { ShopHttpError, ShopWriteUnsureError } from '../../source/errors.js';
import type { ChildIds, StepKey } from '../journal.js';
import type { PlanRow } from '../plan.js';
import { customerCreateBody } from '../records/customer-bodies.js';
import { markerOf } from '../records/natural-keys.js';
import { guestEmail, orderCreateBody } from '../records/order-bodies.js';
import { orderStateSteps } from '../records/order-states.js';
import { createdChildIds, imageLinksBody, productCreateBody } from '../records/product-bodies.js';
import { fetchTarget, findCreated, searchCustomersByEmail } from '../shop-reads.js';
import type { TargetRecord } from '../target.js';
import { setOrderStates } from './states.js';
import type { RestoreWriter } from './writer.js';

/** Creates whose answer is lost are looked up and, when the shop does not hold them, sent again this many times. */
const CREATE_ATTEMPTS = 3;

export interface CreateOptions {
  sendInvites: boolean;
  activationUrls: boolean;
}

/**
 * Creates a snapshot record in the target, then what follows its create: a product's image links, a customer's
 * activation URL, an order's email (when it was created without a customer) and states. A create an earlier run
 * finished is not sent again (its record is read back for the follow-ups), nor one it left unsure that the shop was
 * found to hold (`found`).
 */
export async function createRecord(
  w: RestoreWriter,
  row: PlanRow,
  record: JsonObject,
  found: TargetRecord | undefined,
  options: CreateOptions,
): Promise<void> {
  const { resource, id } = row;
  const key: StepKey = { step: 'create', resource, id };
  const state = w.journal.state(key);
  let created: TargetRecord | undefined;
  if (state?.state === 'done' && state.targetId !== undefined) {
    created = (await fetchTarget(w.client, resource, state.targetId)) ?? undefined;
  }
  if (created === undefined && found !== undefined) {
    created = found;
    recordCreate(w, key, record, found, 'found');
    w.outcome(resource).found++;
  }
  if (created === undefined) created = await sendCreate(w, key, record, options);
  if (created === undefined) return;
  w.result.written[resource].set(id, created.id);
  if (resource === 'products') await linkImages(w, id, record, created);
  if (resource === 'customers' && options.activationUrls) await activationUrl(w, id, created);
  if (resource === 'orders') {
    await setGuestEmail(w, id, record, created);
    await setOrderStates(w, id, orderStateSteps(record, undefined).steps, created.id);
  }
}

/** Sends a create; a lost answer is settled by searching the shop for the marker before anything is sent again. */
async function sendCreate(
  w: RestoreWriter,
  key: StepKey,
  record: JsonObject,
  options: CreateOptions,
): Promise<TargetRecord | undefined> {
  const { resource, id } = key;
  const handle = resource === 'products' && typeof record.handle === 'string' ? record.handle : undefined;
  for (let attempt = 1; ; attempt++) {
    const body = createBody(w, resource, record, options);
    const since = Date.now();
    try {
      const answer = await w.write(
        key,
        `${resource}.json`,
        { method: 'POST', body, repeatable: false },
        SINGULAR[resource],
        handle,
      );
      if (resource === 'orders') w.ordersLeft--;
      const created = { id: String(answer.id), record: answer };
      recordCreate(w, key, record, created, 'written');
      return created;
    } catch (error) {
      if (error instanceof ShopWriteUnsureError) {
        w.logger?.warn(
          { resource, id, error: error.message },
          `${resource} ${id}: the answer to its create was lost; searching the shop for it before sending it again`,
        );
        const found = (await findCreated(w.client, resource, new Map([[id, handle]]), since)).get(id);
        if (found !== undefined) {
          recordCreate(w, key, record, found, 'found');
          w.outcome(resource).found++;
          return found;
        }
        w.journalLine({ kind: 'absent', ...key });
        if (attempt < CREATE_ATTEMPTS) continue;
        w.fail(key, undefined, undefined, `${error.message}; the shop does not hold it after ${attempt} attempts`);
        return undefined;
      }
      if (resource === 'customers' && isTaken(error)) return takenCustomer(w, key, record, error as ShopHttpError);
      throw error;
    }
  }
}

function createBody(w: RestoreWriter, resource: ResourceName, record: JsonObject, options: CreateOptions): JsonObject {
  if (resource === 'products') return productCreateBody(record);
  if (resource === 'customers') return customerCreateBody(record, { sendInvite: options.sendInvites });
  return orderCreateBody(record, w.ids).body;
}

function recordCreate(
  w: RestoreWriter,
  key: StepKey,
  record: JsonObject,
  created: TargetRecord,
  how: 'written' | 'found',
): void {
  const children: ChildIds = {};
  if (key.resource === 'products') {
    const pairs = createdChildIds(record, created.record);
    children.variants = Object.fromEntries(pairs.variants);
    children.images = Object.fromEntries(pairs.images);
  }
  w.journalLine({ kind: 'done', ...key, target_id: created.id, children, how });
  w.ids.set(key.resource, key.id, created.id);
  w.ids.addChildren(children);
  if (how === 'written') w.outcome(key.resource).created++;
}

/**
 * A customer create refused because its email or phone is taken: a customer the crawl did not list (created since,
 * or the list lagged). Searched by the quoted email; one carrying this record's marker is restore's own (done), any
 * other is matched: the orders point at it, and nothing of it is changed.
 */
async function takenCustomer(
  w: RestoreWriter,
  key: StepKey,
  record: JsonObject,
  refusal: ShopHttpError,
): Promise<TargetRecord | undefined> {
  const email = typeof record.email === 'string' ? record.email : undefined;
  const holders = email === undefined ? [] : await searchCustomersByEmail(w.client, email);
  const holder = holders.find((found) => markerOf('customers', found.record) === key.id) ?? holders[0];
  if (holder === undefined) {
    w.fail(key, refusal.status, refusal.errors, refusal.message);
    return undefined;
  }
  if (markerOf('customers', holder.record) === key.id) {
    recordCreate(w, key, record, holder, 'found');
    w.outcome('customers').found++;
    return holder;
  }
  w.ids.set('customers', key.id, holder.id);
  w.outcome('customers').matched++;
  w.logger?.info(
    { resource: 'customers', id: key.id, target_id: holder.id },
    `customers ${key.id}: its email is taken by customer ${holder.id}, which the crawl had not listed; matched to it`,
  );
  return undefined;
}

/** A created product's images shown on its variants: the links need the new variant ids, so a PUT follows. */
async function linkImages(w: RestoreWriter, id: string, record: JsonObject, created: TargetRecord): Promise<void> {
  const key: StepKey = { step: 'image-links', resource: 'products', id };
  if (w.done(key)) return;
  const body = imageLinksBody(record, created.record);
  if (body === undefined) return;
  await w.write(key, `products/${created.id}.json`, { method: 'PUT', body, repeatable: true }, 'product');
  w.journalLine({ kind: 'done', ...key, target_id: created.id });
}

async function activationUrl(w: RestoreWriter, id: string, created: TargetRecord): Promise<void> {
  const key: StepKey = { step: 'activation-url', resource: 'customers', id };
  if (w.done(key)) return;
  const path = `customers/${created.id}/account_activation_url.json`;
  const answer = await w.write(key, path, { method: 'POST', repeatable: true }, undefined);
  const url = typeof answer.account_activation_url === 'string' ? answer.account_activation_url : undefined;
  w.journalLine({ kind: 'done', ...key, target_id: created.id, ...(url === undefined ? {} : { value: url }) });
}

/** The email of an order created without a customer, set by its PUT (see guestEmail: its create leaves it out). */
async function setGuestEmail(w: RestoreWriter, id: string, record: JsonObject, created: TargetRecord): Promise<void> {
  const key: StepKey = { step: 'email', resource: 'orders', id };
  const email = guestEmail(record, w.ids);
  if (email === undefined || created.record.email === email || w.done(key)) return;
  const body = { order: { id: created.record.id ?? null, email } };
  await w.write(key, `orders/${created.id}.json`, { method: 'PUT', body, repeatable: true }, 'order');
  w.journalLine({ kind: 'done', ...key, target_id: created.id });
}

/** A 422 saying the customer's email or phone belongs to another customer already. */
function isTaken(error: unknown): boolean {
  return error instanceof ShopHttpError && error.status === 422 && /has already been taken/.test(error.message);
}
