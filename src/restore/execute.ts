import PQueue from 'p-queue';
import type { Logger } from '../log.js';
import { isJsonObject, type JsonObject } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { ShopThrottledError } from '../source/errors.js';
import type { ShopClient } from '../source/shop-client.js';
import type { IdMap } from './id-map.js';
import type { Journal, StepKey } from './journal.js';
import type { Plan, PlanRow } from './plan.js';
import { idText } from './records/ids.js';
import { findCreated } from './shop-reads.js';
import type { RestoreSource } from './source.js';
import type { TargetRecord } from './target.js';
import { createRecord } from './writes/creates.js';
import { type ExecuteResult, noOutcome } from './writes/outcome.js';
import { deleteRecord } from './writes/prune.js';
import { updateRecord } from './writes/updates.js';
import { isVariantLimit, RestoreWriter, VARIANT_LIMIT_REASON } from './writes/writer.js';

export type { ExecuteResult, Failure, ResourceOutcome } from './writes/outcome.js';

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

/**
 * Carries out a plan: products and customers (independent of each other) in parallel, and each order as soon as the
 * products and customer it names are written (its line items and customer through the id map), each order's states
 * right after it (cancel before anything else, then close or open), then --prune's deletes (orders before customers
 * before products: Shopify refuses to delete a customer with orders). Every write is journaled: its intent before it
 * is sent, its result after; a create never goes out twice unless the shop, searched for its marker, does not hold it
 * (writes/: what each write is).
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

/** The order of a restore's writes: which record goes when, what waits for what, and when the run stops. */
class Executor {
  private readonly w: RestoreWriter;
  private readonly result: ExecuteResult;
  private readonly queue: PQueue;
  private readonly startedMs = performance.now();
  /** Products and customers the plan writes, each settled once written (or given up): orders wait for theirs. */
  private readonly pending = new Map<string, { promise: Promise<void>; settle(): void }>();
  /** Records an earlier run created, found by settleUnsure: their create is done once their snapshot record is read. */
  private readonly pendingFound = new Map<string, TargetRecord>();
  private fatal: unknown;

  constructor(private readonly o: ExecuteOptions) {
    this.w = new RestoreWriter(o.client, o.journal, o.ids, o.logger, o.signal);
    this.result = this.w.result;
    this.queue = new PQueue({ concurrency: o.concurrency });
  }

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
      const unsure = new Map<string, { sinceMs: number; key: string | undefined }>();
      for (const row of rows) {
        const state = this.o.journal.state({ step: 'create', resource, id: row.id });
        if (row.class === 'create' && state?.state === 'unsure') {
          unsure.set(row.id, { sinceMs: Date.parse(state.since), key: state.key });
        }
      }
      if (unsure.size === 0) continue;
      const wanted = new Map([...unsure].map(([id, { key }]) => [id, key]));
      const sinceMs = Math.min(...[...unsure.values()].map((entry) => entry.sinceMs));
      const found = await findCreated(this.o.client, resource, wanted, sinceMs);
      for (const id of unsure.keys()) {
        const record = found.get(id);
        if (record === undefined) this.w.journalLine({ kind: 'absent', step: 'create', resource, id });
        else this.pendingFound.set(`${resource} ${id}`, record);
      }
    }
  }

  private async phase(resource: ResourceName): Promise<void> {
    const plan = this.o.plan.resources[resource];
    if (plan === undefined) return;
    const rows = new Map(plan.rows.map((row) => [row.id, row]));
    if (resource === 'orders') this.w.ordersLeft = plan.counts.create;
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

  /**
   * A record the plan matched that the journal still shows as an unsure create: the crawl found it by its marker, so
   * the create happened. The journal says so, and it is verified like every record restore wrote.
   */
  private settleMatched(row: PlanRow): void {
    if (row.target_id === undefined || (row.matched_by !== 'marker' && row.matched_by !== 'journal')) return;
    const key = { step: 'create' as const, resource: row.resource, id: row.id };
    const state = this.o.journal.state(key);
    if (state?.state === 'unsure' || state?.state === 'absent') {
      this.w.journalLine({ kind: 'done', ...key, target_id: row.target_id, how: 'found' });
      this.w.outcome(row.resource).found++;
    }
    if (state !== undefined) this.result.written[row.resource].set(row.id, row.target_id);
  }

  private async restoreRecord(row: PlanRow, record: JsonObject): Promise<void> {
    const step = row.class === 'create' ? 'create' : 'update';
    const key: StepKey = { step, resource: row.resource, id: row.id };
    if (row.resource === 'products' && this.w.variantLimit !== undefined) {
      this.w.fail(key, 429, this.w.variantLimit.errors, VARIANT_LIMIT_REASON);
      return;
    }
    const blocked = row.resource === 'orders' && step === 'create' ? this.blockedBy(record) : undefined;
    if (blocked !== undefined) {
      this.w.fail(key, undefined, undefined, blocked);
      return;
    }
    try {
      if (row.class === 'create') {
        const found = this.pendingFound.get(`${row.resource} ${row.id}`);
        await createRecord(this.w, row, record, found, this.o);
      } else {
        const held = this.o.held[row.resource]?.get(row.target_id as string)?.record;
        await updateRecord(this.w, row, record, held, this.o.prune);
      }
    } catch (error) {
      if (error instanceof ShopThrottledError && row.resource === 'products' && isVariantLimit(error)) {
        this.w.fail(key, 429, error.errors, VARIANT_LIMIT_REASON);
        return;
      }
      if (!this.w.refusal(error, row.resource, row.id, step)) throw error;
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

  /** --prune's deletes of one resource, all at once within the writes in flight. */
  private async prune(resource: ResourceName): Promise<void> {
    const rows = this.o.plan.resources[resource]?.prune ?? [];
    await Promise.all(rows.map((row) => this.task(() => deleteRecord(this.w, resource, row))));
    if (this.fatal !== undefined) throw this.fatal;
  }
}

function settleable(): { promise: Promise<void>; settle(): void } {
  let settle: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}
