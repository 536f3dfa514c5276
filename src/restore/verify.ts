import PQueue from 'p-queue';
import { crashPoint } from '../crash-point.js';
import { isJsonObject } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import type { ShopClient } from '../source/shop-client.js';
import type { IdMap } from './id-map.js';
import type { Plan } from './plan.js';
import { type FieldChange, fieldDiff } from './records/field-diff.js';
import { idText } from './records/ids.js';
import { countRecords, customerOrderIds, fetchTarget } from './shop-reads.js';
import type { RestoreSource } from './source.js';

/** A restored record the shop serves otherwise than the snapshot holds it, on fields restore could write. */
export interface Difference {
  resource: ResourceName;
  id: string;
  target_id: string;
  /** Restorable fields that differ: snapshot (`before`) against the shop (`after`); empty when the record is gone. */
  fields: FieldChange[];
  /** The shop answered 404: the record is gone. */
  gone?: true;
}

export interface Verification {
  /** Records read back per resource, and how many equal the snapshot on every restorable field. */
  resources: Partial<Record<ResourceName, { checked: number; equal: number }>>;
  differences: Difference[];
  /** Differences the plan already named as impossible to write (not held against the restore). */
  expected: number;
  /** Restored customers' orders, through the customer-orders endpoint: those missing from a customer's list. */
  customerOrders: { checked: number; missing: Array<{ customer: string; target_id: string; orders: string[] }> };
  counts: { before: Partial<Record<ResourceName, number>>; after: Partial<Record<ResourceName, number>> };
  /** Requests the verification sent. */
  requests: number;
}

/** Reads at once: the pacer keeps them within the shop's bucket; more would only wait there. */
const READS_AT_ONCE = 8;

/**
 * Reads back every record restore wrote (one GET each, through the client and its pacer) and compares it with the
 * snapshot on the restorable fields, its references read through the id map. Differences the plan listed as
 * impossible to write are expected; any other is the restore's defect, reported. Then each restored customer's orders
 * are listed through the customer-orders endpoint, and the shop's counts taken.
 */
export async function verifyRestore(options: {
  client: ShopClient;
  source: RestoreSource;
  plan: Plan;
  written: Record<ResourceName, ReadonlyMap<string, string>>;
  ids: IdMap;
  countsBefore: Partial<Record<ResourceName, number>>;
}): Promise<Verification> {
  const { client, source, plan, written, ids } = options;
  const verification: Verification = {
    resources: {},
    differences: [],
    expected: 0,
    customerOrders: { checked: 0, missing: [] },
    counts: { before: options.countsBefore, after: {} },
    requests: 0,
  };
  const queue = new PQueue({ concurrency: READS_AT_ONCE });
  /** Target orders each restored customer should list (target customer id → target order ids). */
  const ordersOf = new Map<string, Set<string>>();
  for (const resource of RESOURCES) {
    const resourcePlan = plan.resources[resource];
    if (resourcePlan === undefined) continue;
    const known = new Map(resourcePlan.rows.map((row) => [row.id, (row.cannot_roll_back ?? []).map((c) => c.path)]));
    const tally = { checked: 0, equal: 0 };
    verification.resources[resource] = tally;
    const reads: Promise<void>[] = [];
    for await (const { id, record } of source.records(resource)) {
      if (resource === 'orders') expectCustomerOrder(record, id, ids, written.customers, ordersOf);
      const targetId = written[resource].get(id);
      if (targetId === undefined) continue;
      reads.push(
        queue.add(async () => {
          const served = await fetchTarget(client, resource, targetId);
          verification.requests++;
          crashPoint('restore-verify');
          tally.checked++;
          if (served === undefined) {
            verification.differences.push({ resource, id, target_id: targetId, fields: [], gone: true });
            return;
          }
          const paths = known.get(id) ?? [];
          const fields = fieldDiff(resource, record, served.record, ids);
          const unexpected = fields.filter((field) => !paths.some((path) => within(field.path, path)));
          verification.expected += fields.length - unexpected.length;
          if (unexpected.length === 0) tally.equal++;
          else verification.differences.push({ resource, id, target_id: targetId, fields: unexpected });
        }),
      );
    }
    await Promise.all(reads);
  }
  await Promise.all(
    [...ordersOf].map(([customer, orders]) =>
      queue.add(async () => {
        const listed = await customerOrderIds(client, customer);
        verification.requests++;
        verification.customerOrders.checked++;
        const missing = [...orders].filter((order) => !listed.has(order));
        if (missing.length > 0) {
          const source = [...written.customers].find(([, target]) => target === customer)?.[0] ?? '';
          verification.customerOrders.missing.push({ customer: source, target_id: customer, orders: missing });
        }
      }),
    ),
  );
  for (const resource of RESOURCES) {
    if (plan.resources[resource] === undefined) continue;
    verification.counts.after[resource] = await countRecords(client, resource);
    verification.requests++;
  }
  return verification;
}

/** Notes the target order a restored customer's order list should hold, where both are in the target. */
function expectCustomerOrder(
  order: Parameters<typeof fieldDiff>[1],
  id: string,
  ids: IdMap,
  customers: ReadonlyMap<string, string>,
  ordersOf: Map<string, Set<string>>,
): void {
  const customer = isJsonObject(order.customer) ? idText(order.customer.id) : undefined;
  const targetCustomer = customer === undefined ? undefined : customers.get(customer);
  const targetOrder = ids.target('orders', id);
  if (targetCustomer === undefined || targetOrder === undefined) return;
  const orders = ordersOf.get(targetCustomer) ?? new Set<string>();
  orders.add(targetOrder);
  ordersOf.set(targetCustomer, orders);
}

/** Whether a JSON path lies at or below another (`$.line_items[0].price` within `$.line_items[0]`). */
function within(path: string, outer: string): boolean {
  return path === outer || path.startsWith(`${outer}.`) || path.startsWith(`${outer}[`);
}

export function verificationPassed(verification: Verification): boolean {
  return verification.differences.length === 0 && verification.customerOrders.missing.length === 0;
}
