import { createHash } from 'node:crypto';
import PQueue from 'p-queue';
import { crashPoint } from '../crash-point.js';
import type { Logger } from '../log.js';
import { isJsonObject, type JsonObject, type JsonValue, parseJson, stringifyJson } from '../shopify/json.js';
import { RESOURCES, type ResourceName, SINGULAR } from '../shopify/resources.js';
import { ShopHttpError, ShopThrottledError, ShopWriteUnsureError } from '../source/errors.js';
import type { ShopClient, WriteCall } from '../source/shop-client.js';
import { OrderCreateLimit } from './create-limit.js';
import type { IdMap } from './id-map.js';
import type { ChildIds, Journal, StepKey, StepKind } from './journal.js';
import type { Plan, PlanRow } from './plan.js';
import { customerCreateBody, customerUpdate } from './records/customer-bodies.js';
import { idText } from './records/ids.js';
import { markerOf } from './records/natural-keys.js';
import { orderCreateBody, orderUpdate } from './records/order-bodies.js';
import { type OrderStateStep, orderStateSteps } from './records/order-states.js';
import {
  createdChildIds,
  imageLinksBody,
  lostVariants,
  productCreateBody,
  productUpdate,
} from './records/product-bodies.js';
import type { RecordUpdate } from './records/update.js';
import { fetchTarget, findCreated, readEnvelope, searchCustomersByEmail } from './shop-reads.js';
import type { RestoreSource } from './source.js';
import type { TargetRecord } from './target.js';

/** A write the shop refused (or that could not be settled), with the shop's reason: the report lists each. */
export interface Failure {
  resource: ResourceName;
  /** The snapshot's id (for a delete, the target's). */
  id: string;
  step: StepKind;
  status?: number;
  errors?: JsonValue;
  message: string;
}

export interface ResourceOutcome {
  created: number;
  updated: number;
  /** Creates an earlier run or a lost answer left unsure, found in the shop by their marker (never sent again). */
  found: number;
  /** Records a create found already there (a customer's email taken by a record the index had not listed). */
  matched: number;
  states: Record<'cancel' | 'close' | 'open', number>;
  deleted: number;
  failed: number;
}

export interface ExecuteResult {
  resources: Partial<Record<ResourceName, ResourceOutcome>>;
  failures: Failure[];
  /** Snapshot records this run wrote or found written (source id → target id), for verification. */
  written: Record<ResourceName, Map<string, string>>;
  /** Write requests sent, retries included. */
  writes: number;
}

export interface ExecuteOptions {
  client: ShopClient;
  journal: Journal;
  ids: IdMap;
  source: RestoreSource;
  /** The target's records as the plan saw them. */
  held: Partial<Record<ResourceName, Map<string, TargetRecord>>>;
  plan: Plan;
  sendInvites: boolean;
  activationUrls: boolean;
  prune: boolean;
  /** Writes in flight at once; the pacer keeps them within the shop's bucket. */
  concurrency: number;
  logger?: Logger | undefined;
  signal?: AbortSignal | undefined;
}

/** Creates whose answer is lost are looked up and, when the shop does not hold them, sent again this many times. */
const CREATE_ATTEMPTS = 3;

/**
 * Carries out a plan: products and customers (independent of each other) in parallel, and each order as soon as the
 * products and customer it names are written (its line items and customer through the id map), each order's states
 * right after it (cancel before anything else, then close or open), then --prune's deletes (orders before customers before products: Shopify refuses to delete a customer with
 * orders). Every write is journaled: its intent before it is sent, its result after; a create never goes out twice
 * unless the shop, searched for its marker, does not hold it.
 */
export async function executePlan(options: ExecuteOptions): Promise<ExecuteResult> {
  const run = new Executor(options);
  const progress = setInterval(() => run.logProgress(), PROGRESS_INTERVAL_MS);
  progress.unref();
  try {
    return await run.execute();
  } finally {
    clearInterval(progress);
  }
}

/** How often a restore says where it stands (creates and updates done of those planned, per resource, and a rate). */
const PROGRESS_INTERVAL_MS = 10_000;

class Executor {
  private readonly result: ExecuteResult = {
    resources: {},
    failures: [],
    written: { products: new Map(), customers: new Map(), orders: new Map() },
    writes: 0,
  };
  private readonly queue: PQueue;
  private inFlight = 0;
  private readonly orderLimit: OrderCreateLimit;
  private ordersLeft = 0;

  constructor(private readonly o: ExecuteOptions) {
    this.queue = new PQueue({ concurrency: o.concurrency });
    this.orderLimit = new OrderCreateLimit(o.logger, () => this.ordersLeft, o.signal);
  }

  private readonly startedMs = performance.now();

  /** One line: the records done of those planned per resource, the write rate so far, an ETA at that rate. */
  logProgress(): void {
    let done = 0;
    let planned = 0;
    const parts: string[] = [];
    for (const resource of RESOURCES) {
      const plan = this.o.plan.resources[resource];
      const outcome = this.result.resources[resource];
      if (plan === undefined || outcome === undefined) continue;
      const wanted = plan.counts.create + plan.counts.update;
      const settled = Math.min(
        wanted,
        outcome.created + outcome.updated + outcome.found + outcome.matched + outcome.failed,
      );
      done += settled;
      planned += wanted;
      parts.push(`${resource} ${settled} of ${wanted}`);
    }
    const seconds = (performance.now() - this.startedMs) / 1000;
    const rate = this.result.writes / seconds;
    const left = Math.max(0, this.o.plan.writes - this.result.writes);
    const eta = rate > 0 ? `, ETA ${Math.ceil(left / rate)} s` : '';
    this.o.logger?.info(
      { done, planned, writes: this.result.writes, rate: Number(rate.toFixed(2)) },
      `restore: ${parts.join(', ')} written; ${this.result.writes} writes, ${rate.toFixed(1)}/s${eta}`,
    );
  }

  async execute(): Promise<ExecuteResult> {
    for (const resource of RESOURCES) {
      if (this.o.plan.resources[resource] !== undefined) this.result.resources[resource] = noOutcome();
    }
    await this.settleUnsure();
    for (const resource of ['products', 'customers'] as const) {
      for (const row of this.o.plan.resources[resource]?.rows ?? []) {
        if (row.class === 'create' || row.class === 'update') this.pending.set(`${resource} ${row.id}`, settleable());
      }
    }
    // Orders start as soon as the products and customers they name are written, not after all of them: a barrier
    // between the resources would leave the bucket idle while the slowest writes before it come back.
    await Promise.all([this.phase('products'), this.phase('customers'), this.phase('orders')]);
    for (const resource of [...RESOURCES].reverse()) await this.prune(resource);
    return this.result;
  }

  /**
   * Creates an earlier run sent without an answer, whose records the target's crawl did not show by their marker: one
   * search per resource among the records the shop created since (lists can lag behind a write). Found: recorded as
   * done; not found: absent, and created again.
   */
  private async settleUnsure(): Promise<void> {
    for (const resource of RESOURCES) {
      const rows = this.o.plan.resources[resource]?.rows ?? [];
      const unsure = new Map<string, number>();
      for (const row of rows) {
        const state = this.o.journal.state({ step: 'create', resource, id: row.id });
        if (row.class === 'create' && state?.state === 'unsure') unsure.set(row.id, Date.parse(state.since));
      }
      if (unsure.size === 0) continue;
      const found = await findCreated(this.o.client, resource, new Set(unsure.keys()), Math.min(...unsure.values()));
      for (const id of unsure.keys()) {
        const record = found.get(id);
        const key = { step: 'create' as const, resource, id };
        if (record === undefined) this.journal({ kind: 'absent', ...key });
        else this.pendingFound.set(`${resource} ${id}`, record);
      }
    }
  }

  /** Records an earlier run created, found by settleUnsure: their create is done once their snapshot record is read. */
  private readonly pendingFound = new Map<string, TargetRecord>();

  private async phase(resource: ResourceName): Promise<void> {
    const plan = this.o.plan.resources[resource];
    if (plan === undefined) return;
    const rows = new Map(plan.rows.map((row) => [row.id, row]));
    if (resource === 'orders') this.ordersLeft = plan.counts.create;
    const tasks: Promise<void>[] = [];
    try {
      for await (const { id, record } of this.o.source.records(resource)) {
        if (this.fatal !== undefined) break;
        const row = rows.get(id);
        if (row === undefined) continue;
        this.settleMatched(row);
        if (row.class !== 'create' && row.class !== 'update') continue;
        if (resource === 'orders') await this.dependencies(record);
        // Back-pressure: the archive is read no faster than its records are written.
        await this.queue.onSizeLessThan(this.o.concurrency);
        const pending = this.pending.get(`${resource} ${id}`);
        // What orders wait for goes first.
        const priority = resource === 'orders' ? 0 : 1;
        tasks.push(this.task(() => this.restoreRecord(row, record), priority).finally(() => pending?.settle()));
      }
      await Promise.all(tasks);
    } finally {
      // A phase stopped early leaves nothing for an order to wait on.
      for (const [key, pending] of this.pending) if (key.startsWith(`${resource} `)) pending.settle();
    }
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** Products and customers the plan writes, each settled once written (or given up): orders wait for theirs. */
  private readonly pending = new Map<string, { promise: Promise<void>; settle(): void }>();

  /** Until the products an order's line items name and its customer are written, where this run writes them. */
  private async dependencies(order: JsonObject): Promise<void> {
    const keys = (Array.isArray(order.line_items) ? order.line_items : []).flatMap((line) => {
      const product = isJsonObject(line) ? idText(line.product_id) : undefined;
      return product === undefined ? [] : [`products ${product}`];
    });
    const customer = isJsonObject(order.customer) ? idText(order.customer.id) : undefined;
    if (customer !== undefined) keys.push(`customers ${customer}`);
    await Promise.all(keys.map((key) => this.pending.get(key)?.promise));
  }

  /**
   * Runs a write task in the queue. A failure no record can be blamed for (credentials, a frozen shop, retries
   * exhausted, an interruption) stops the restore: nothing more is started, what is in flight ends, and it is thrown.
   */
  private task(work: () => Promise<void>, priority = 0): Promise<void> {
    return this.queue.add(work, { priority }).catch((error: unknown) => {
      this.fatal ??= error;
      this.queue.clear();
    });
  }

  private fatal: unknown;

  /**
   * A record the plan matched that the journal still shows as an unsure create: the crawl found it by its marker, so
   * the create happened. The journal says so, and it is verified like every record restore wrote.
   */
  private settleMatched(row: PlanRow): void {
    if (row.target_id === undefined || (row.matched_by !== 'marker' && row.matched_by !== 'journal')) return;
    const key = { step: 'create' as const, resource: row.resource, id: row.id };
    const state = this.o.journal.state(key);
    if (state?.state === 'unsure' || state?.state === 'absent') {
      this.journal({ kind: 'done', ...key, target_id: row.target_id, how: 'found' });
      this.outcome(row.resource).found++;
    }
    if (state !== undefined) this.result.written[row.resource].set(row.id, row.target_id);
  }

  private async restoreRecord(row: PlanRow, record: JsonObject): Promise<void> {
    const step = row.class === 'create' ? 'create' : 'update';
    const key: StepKey = { step, resource: row.resource, id: row.id };
    if (row.resource === 'products' && this.variantLimit !== undefined) {
      this.fail(key, 429, this.variantLimit.errors, VARIANT_LIMIT_REASON);
      return;
    }
    const blocked = row.resource === 'orders' && step === 'create' ? this.blockedBy(record) : undefined;
    if (blocked !== undefined) {
      this.fail(key, undefined, undefined, blocked);
      return;
    }
    try {
      if (row.class === 'create') await this.create(row, record);
      else await this.update(row, record);
    } catch (error) {
      if (error instanceof ShopThrottledError && row.resource === 'products' && isVariantLimit(error)) {
        this.fail(key, 429, error.errors, VARIANT_LIMIT_REASON);
        return;
      }
      if (!this.refusal(error, row.resource, row.id, step)) throw error;
    }
  }

  /**
   * Why an order must wait, or undefined: a line item names a product of the snapshot that this run could not restore
   * (refused, or in conflict). Created now, the line would become a custom item for good; run again once the product
   * is there, it points at its variant.
   */
  private blockedBy(order: JsonObject): string | undefined {
    const products = this.o.plan.resources.products;
    if (products === undefined) return undefined;
    for (const line of Array.isArray(order.line_items) ? order.line_items : []) {
      if (!isJsonObject(line)) continue;
      const variant = idText(line.variant_id);
      const product = idText(line.product_id);
      if (variant === undefined || product === undefined || this.o.ids.target('variants', variant) !== undefined)
        continue;
      const failure = this.result.failures.find((f) => f.resource === 'products' && f.id === product);
      if (failure !== undefined) return `waits for product ${product}, which could not be restored: ${failure.message}`;
      const row = products.rows.find((r) => r.id === product);
      if (row?.class === 'conflict') return `waits for product ${product}, which is in conflict: ${row.reason}`;
    }
    return undefined;
  }

  /** The shop's answer once its daily limit on new variants is reached: no product write is sent after it. */
  private variantLimit: ShopThrottledError | undefined;

  // ---- creates ----

  private async create(row: PlanRow, record: JsonObject): Promise<void> {
    const { resource, id } = row;
    const key: StepKey = { step: 'create', resource, id };
    const state = this.o.journal.state(key);
    let created: TargetRecord | undefined;
    if (state?.state === 'done' && state.targetId !== undefined) {
      created = (await fetchTarget(this.o.client, resource, state.targetId)) ?? undefined;
    }
    const found = this.pendingFound.get(`${resource} ${id}`);
    if (created === undefined && found !== undefined) {
      created = found;
      this.recordCreate(key, record, found, 'found');
      this.outcome(resource).found++;
    }
    if (created === undefined) created = await this.sendCreate(key, record);
    if (created === undefined) return;
    this.result.written[resource].set(id, created.id);
    if (resource === 'products') await this.linkImages(id, record, created);
    if (resource === 'customers' && this.o.activationUrls) await this.activationUrl(id, created);
    if (resource === 'orders') await this.setStates(id, orderStateSteps(record, undefined).steps, created.id);
  }

  /** Sends a create; a lost answer is settled by searching the shop for the marker before anything is sent again. */
  private async sendCreate(key: StepKey, record: JsonObject): Promise<TargetRecord | undefined> {
    const { resource, id } = key;
    for (let attempt = 1; ; attempt++) {
      const body = this.createBody(resource, record);
      const since = Date.now();
      try {
        const answer = await this.write(
          key,
          `${resource}.json`,
          { method: 'POST', body, repeatable: false },
          SINGULAR[resource],
        );
        if (resource === 'orders') this.ordersLeft--;
        const created = { id: String(answer.id), record: answer };
        this.recordCreate(key, record, created, 'written');
        return created;
      } catch (error) {
        if (error instanceof ShopWriteUnsureError) {
          this.o.logger?.warn(
            { resource, id, error: error.message },
            `${resource} ${id}: the answer to its create was lost; searching the shop for it before sending it again`,
          );
          const found = (await findCreated(this.o.client, resource, new Set([id]), since)).get(id);
          if (found !== undefined) {
            this.recordCreate(key, record, found, 'found');
            this.outcome(resource).found++;
            return found;
          }
          this.journal({ kind: 'absent', ...key });
          if (attempt < CREATE_ATTEMPTS) continue;
          this.fail(key, undefined, undefined, `${error.message}; the shop does not hold it after ${attempt} attempts`);
          return undefined;
        }
        if (resource === 'customers' && isTaken(error)) return this.takenCustomer(key, record, error as ShopHttpError);
        throw error;
      }
    }
  }

  private createBody(resource: ResourceName, record: JsonObject): JsonObject {
    if (resource === 'products') return productCreateBody(record);
    if (resource === 'customers') return customerCreateBody(record, { sendInvite: this.o.sendInvites });
    return orderCreateBody(record, this.o.ids).body;
  }

  private recordCreate(key: StepKey, record: JsonObject, created: TargetRecord, how: 'written' | 'found'): void {
    const children: ChildIds = {};
    if (key.resource === 'products') {
      const pairs = createdChildIds(record, created.record);
      children.variants = Object.fromEntries(pairs.variants);
      children.images = Object.fromEntries(pairs.images);
    }
    this.journal({ kind: 'done', ...key, target_id: created.id, children, how });
    this.o.ids.set(key.resource, key.id, created.id);
    this.o.ids.addChildren(children);
    if (how === 'written') this.outcome(key.resource).created++;
  }

  /**
   * A customer create refused because its email or phone is taken: a customer the crawl did not list (created since,
   * or the list lagged). Searched by the quoted email; one carrying this record's marker is restore's own (done), any
   * other is matched: the orders point at it, and nothing of it is changed.
   */
  private async takenCustomer(
    key: StepKey,
    record: JsonObject,
    refusal: ShopHttpError,
  ): Promise<TargetRecord | undefined> {
    const email = typeof record.email === 'string' ? record.email : undefined;
    const holders = email === undefined ? [] : await searchCustomersByEmail(this.o.client, email);
    const holder = holders.find((found) => markerOf('customers', found.record) === key.id) ?? holders[0];
    if (holder === undefined) {
      this.fail(key, refusal.status, refusal.errors, refusal.message);
      return undefined;
    }
    if (markerOf('customers', holder.record) === key.id) {
      this.recordCreate(key, record, holder, 'found');
      this.outcome('customers').found++;
      return holder;
    }
    this.o.ids.set('customers', key.id, holder.id);
    this.outcome('customers').matched++;
    this.o.logger?.info(
      { resource: 'customers', id: key.id, target_id: holder.id },
      `customers ${key.id}: its email is taken by customer ${holder.id}, which the crawl had not listed; matched to it`,
    );
    return undefined;
  }

  /** A created product's images shown on its variants: the links need the new variant ids, so a PUT follows. */
  private async linkImages(id: string, record: JsonObject, created: TargetRecord): Promise<void> {
    const key: StepKey = { step: 'image-links', resource: 'products', id };
    if (this.o.journal.state(key)?.state === 'done') return;
    const body = imageLinksBody(record, created.record);
    if (body === undefined) return;
    await this.write(key, `products/${created.id}.json`, { method: 'PUT', body, repeatable: true }, 'product');
    this.journal({ kind: 'done', ...key, target_id: created.id });
  }

  private async activationUrl(id: string, created: TargetRecord): Promise<void> {
    const key: StepKey = { step: 'activation-url', resource: 'customers', id };
    if (this.o.journal.state(key)?.state === 'done') return;
    const path = `customers/${created.id}/account_activation_url.json`;
    const answer = await this.write(key, path, { method: 'POST', repeatable: true }, undefined);
    const url = typeof answer.account_activation_url === 'string' ? answer.account_activation_url : undefined;
    this.journal({ kind: 'done', ...key, target_id: created.id, ...(url === undefined ? {} : { value: url }) });
  }

  /** An order's states in order; each journaled, none sent again once done. A cancel found already done is done. */
  private async setStates(id: string, steps: readonly OrderStateStep[], targetId: string): Promise<void> {
    for (const step of steps) {
      const key: StepKey = { step: step.action, resource: 'orders', id };
      if (this.o.journal.state(key)?.state === 'done') continue;
      const body = step.action === 'cancel' ? step.body : undefined;
      try {
        await this.write(
          key,
          `orders/${targetId}/${step.action}.json`,
          { method: 'POST', body, repeatable: true },
          'order',
        );
      } catch (error) {
        // A cancel sent twice (its first answer lost) is refused as already done: it is done.
        if (
          !(step.action === 'cancel' && error instanceof ShopHttpError && /already been cancel/i.test(error.message))
        ) {
          throw error;
        }
      }
      this.journal({ kind: 'done', ...key, target_id: targetId });
      this.outcome('orders').states[step.action]++;
    }
  }

  // ---- updates ----

  private async update(row: PlanRow, record: JsonObject): Promise<void> {
    const { resource, id } = row;
    const targetId = row.target_id as string;
    let held = this.o.held[resource]?.get(targetId)?.record;
    if (held === undefined) return;
    if (resource === 'products') {
      const lost = lostVariants(record, held, this.o.ids);
      for (const variant of lost) await this.recreateVariant(id, targetId, variant.sourceId, variant.body);
      // The PUT's variants array is a full set: it must see the variants just made, or it would delete them.
      if (lost.length > 0) held = (await fetchTarget(this.o.client, 'products', targetId))?.record ?? held;
    }
    const key: StepKey = { step: 'update', resource, id };
    const update: RecordUpdate & { steps?: OrderStateStep[] } =
      resource === 'products'
        ? productUpdate(record, held, this.o.ids, { prune: this.o.prune })
        : resource === 'customers'
          ? customerUpdate(record, held, this.o.ids)
          : orderUpdate(record, held, this.o.ids);
    if (update.body !== undefined) {
      await this.write(
        key,
        `${resource}/${targetId}.json`,
        { method: 'PUT', body: update.body, repeatable: true },
        SINGULAR[resource],
      );
      this.journal({ kind: 'done', ...key, target_id: targetId });
      this.outcome(resource).updated++;
    }
    if (update.steps !== undefined) await this.setStates(id, update.steps, targetId);
    this.result.written[resource].set(id, targetId);
  }

  /** A variant the product lost, made again through the variant endpoint; a lost answer is looked up on the product. */
  private async recreateVariant(
    productId: string,
    targetId: string,
    variantId: string,
    body: JsonObject,
  ): Promise<void> {
    const key: StepKey = { step: 'variant', resource: 'products', id: `${productId}/${variantId}` };
    if (this.o.journal.state(key)?.state === 'done') return;
    try {
      const answer = await this.write(
        key,
        `products/${targetId}/variants.json`,
        { method: 'POST', body, repeatable: false },
        'variant',
      );
      this.journal({
        kind: 'done',
        ...key,
        target_id: targetId,
        children: { variants: { [variantId]: String(answer.id) } },
      });
      this.o.ids.set('variants', variantId, String(answer.id));
    } catch (error) {
      if (!(error instanceof ShopWriteUnsureError)) throw error;
      // The product's variants say whether it was made: the update that follows pairs them by option values.
      this.journal({ kind: 'absent', ...key });
    }
  }

  // ---- prune ----

  private async prune(resource: ResourceName): Promise<void> {
    const rows = this.o.plan.resources[resource]?.prune ?? [];
    await Promise.all(
      rows.map((row) =>
        this.task(async () => {
          const key: StepKey = { step: 'delete', resource, id: row.target_id };
          if (this.o.journal.state(key)?.state === 'done') return;
          try {
            await this.write(
              key,
              `${resource}/${row.target_id}.json`,
              { method: 'DELETE', repeatable: true },
              undefined,
            );
          } catch (error) {
            // Deleted already (its first answer lost): done.
            if (!(error instanceof ShopHttpError && error.status === 404)) {
              if (!this.refusal(error, resource, row.target_id, 'delete')) throw error;
              return;
            }
          }
          this.journal({ kind: 'done', ...key });
          this.outcome(resource).deleted++;
        }),
      ),
    );
    if (this.fatal !== undefined) throw this.fatal;
  }

  // ---- the journaled write ----

  /**
   * One write: its intent journaled (fsynced) before it is sent, its answer read under `envelope` (the record's key;
   * undefined: the body is not read). Order creates wait for the development-store limit when the shop has shown one.
   */
  private async write(key: StepKey, path: string, call: WriteCall, envelope: string | undefined): Promise<JsonObject> {
    const orderCreate = key.resource === 'orders' && key.step === 'create';
    // Product creates and updates, and the variant endpoint, may make variants: the variant limit's 429 is theirs.
    const variantWrite = key.resource === 'products' && key.step !== 'delete';
    for (;;) {
      if (orderCreate) await this.orderLimit.acquire();
      const request = `${call.method} ${path}`;
      const payload =
        call.body === undefined ? undefined : createHash('sha256').update(stringifyJson(call.body)).digest('hex');
      this.journal({ kind: 'intent', ...key, request, ...(payload === undefined ? {} : { payload_sha256: payload }) });
      crashPoint('restore-before-write');
      this.inFlight++;
      if (this.inFlight > 1) crashPoint('restore-mid-batch');
      try {
        const response = await this.o.client.send(
          this.o.client.apiUrl(path),
          call,
          envelope === undefined ? readAnything : readEnvelope(envelope),
          {
            shape: { kind: 'write', resource: key.resource },
            onRetry: () => this.result.writes++,
            ...(orderCreate ? { ownLimit: OrderCreateLimit.recognises } : {}),
            ...(variantWrite ? { ownLimit: isVariantLimit } : {}),
          },
        );
        if (orderCreate) this.orderLimit.applied();
        crashPoint('restore-after-write');
        return response.value;
      } catch (error) {
        if (variantWrite && error instanceof ShopThrottledError && this.variantLimit === undefined) {
          this.variantLimit = error;
          this.o.logger?.warn(
            { resource: 'products', error: error.message },
            `products: ${VARIANT_LIMIT_REASON}; the products left are not sent, and the orders that need them wait`,
          );
        }
        if (orderCreate && error instanceof ShopThrottledError) {
          this.orderLimit.refused(error);
          continue;
        }
        if (orderCreate) {
          if (error instanceof ShopWriteUnsureError) this.orderLimit.applied();
          else this.orderLimit.released();
        }
        throw error;
      } finally {
        this.inFlight--;
        this.result.writes++;
      }
    }
  }

  /** A 4xx (other than 401, 403, 402, 423: the run stops on those) is the record's failure, listed; false otherwise. */
  private refusal(error: unknown, resource: ResourceName, id: string, step: StepKind): boolean {
    if (!(error instanceof ShopHttpError) || error.status < 400 || error.status >= 500) return false;
    if ([401, 402, 403, 423, 429].includes(error.status)) return false;
    this.fail({ step, resource, id }, error.status, error.errors, error.message);
    return true;
  }

  private fail(key: StepKey, status: number | undefined, errors: JsonValue | undefined, message: string): void {
    this.journal({
      kind: 'failed',
      ...key,
      ...(status === undefined ? {} : { status }),
      ...(errors === undefined ? {} : { errors }),
      message,
    });
    this.result.failures.push({
      resource: key.resource,
      id: key.id,
      step: key.step,
      ...(status === undefined ? {} : { status }),
      ...(errors === undefined ? {} : { errors }),
      message,
    });
    this.outcome(key.resource).failed++;
  }

  private journal(line: DistributiveOmit<Parameters<Journal['append']>[0], 'at'>): void {
    this.o.journal.append({ ...line, at: new Date().toISOString() } as Parameters<Journal['append']>[0]);
  }

  private outcome(resource: ResourceName): ResourceOutcome {
    let outcome = this.result.resources[resource];
    if (outcome === undefined) {
      outcome = noOutcome();
      this.result.resources[resource] = outcome;
    }
    return outcome;
  }
}

/**
 * Shopify's limit on new variants (1,000 a day once a shop has 50,000; restore.md §0.8) answers a 429 of its own, with
 * no Retry-After. Waiting out a day inside one run helps nobody: the run goes on with everything else and says when to
 * run it again.
 */
const VARIANT_LIMIT_REASON =
  "the shop's daily limit on new variants is reached (Shopify allows 1,000 a day once a shop has 50,000): run the same command again later, it goes on from here";

function isVariantLimit(error: ShopThrottledError): boolean {
  return /variant/i.test(error.bodyExcerpt);
}

function settleable(): { promise: Promise<void>; settle(): void } {
  let settle: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function noOutcome(): ResourceOutcome {
  return {
    created: 0,
    updated: 0,
    found: 0,
    matched: 0,
    states: { cancel: 0, close: 0, open: 0 },
    deleted: 0,
    failed: 0,
  };
}

/** An answer whose body restore does not need (a delete's `{}`), or reads whole (an activation URL). */
function readAnything(body: Buffer): JsonObject {
  try {
    const parsed = parseJson(body.toString('utf8'));
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A 422 saying the customer's email or phone belongs to another customer already. */
function isTaken(error: unknown): boolean {
  return error instanceof ShopHttpError && error.status === 422 && /has already been taken/.test(error.message);
}
