import type { JsonObject } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import type { IdMap } from './id-map.js';
import type { Journal } from './journal.js';
import type { ProductMarkers } from './product-markers.js';
import { classify, type RestoreMode } from './records/classify.js';
import { customerUpdate } from './records/customer-bodies.js';
import { type FieldChange, fieldDiff } from './records/field-diff.js';
import { type IdKind, type IdLookup, idText } from './records/ids.js';
import type { Match } from './records/natural-keys.js';
import { guestEmail, orderCreateBody, orderUpdate } from './records/order-bodies.js';
import { orderStateSteps } from './records/order-states.js';
import { children, pairVariants } from './records/pairing.js';
import { lostVariants, productUpdate } from './records/product-bodies.js';
import { UNRESTORABLE, type Unrestorable } from './records/restorable.js';
import { inScope, type Scope } from './scope.js';
import type { RestoreSource } from './source.js';
import type { TargetRecord, TargetShop } from './target.js';

export type { RestoreMode } from './records/classify.js';
export type PlanClass = 'create' | 'unchanged' | 'update' | 'skip' | 'conflict';
export const PLAN_CLASSES: readonly PlanClass[] = ['create', 'unchanged', 'update', 'skip', 'conflict'];
export type StateStep = 'cancel' | 'close' | 'open';
const STATES: readonly StateStep[] = ['cancel', 'close', 'open'];

/** What the plan does with one snapshot record. */
export interface PlanRow {
  resource: ResourceName;
  /** The snapshot's id, exact. */
  id: string;
  class: PlanClass;
  /** The target record it matched, and how (`id`, `marker`, `handle`, `email`, `phone`, `order`, `journal`). */
  target_id?: string;
  matched_by?: string;
  /** Why it is skipped or in conflict; for a create, what an earlier run left (an unsure write, looked up first). */
  reason?: string;
  /** Restorable fields that differ: snapshot (`before`) against target (`after`). */
  changes?: FieldChange[];
  /** Differences the API cannot write, each with why: on a record that exists, or in a create's body. */
  cannot_roll_back?: Array<{ path: string; reason: string }>;
  /** Order states to set after the create or on the existing order, in order. */
  states?: StateStep[];
}

/** A target record the snapshot does not have, deleted with --prune (recover). */
export interface PruneRow {
  resource: ResourceName;
  target_id: string;
}

export interface ResourcePlan {
  counts: Record<PlanClass, number>;
  /** Order state changes planned. */
  states: Record<StateStep, number>;
  rows: PlanRow[];
  prune: PruneRow[];
  /** Writes the resource's plan sends, before any retry: creates with their follow-ups, updates, states, deletes. */
  writes: number;
}

export interface Plan {
  mode: RestoreMode;
  resources: Partial<Record<ResourceName, ResourcePlan>>;
  writes: number;
  /** What cannot be restored, per resource, and why. */
  cannotRestore: Partial<Record<ResourceName, readonly Unrestorable[]>>;
}

export interface PlanOptions {
  mode: RestoreMode;
  scope: Scope;
  updateExisting: boolean;
  prune: boolean;
  /** Created customers get an activation URL each (--activation-urls): one write more per customer. */
  activationUrls: boolean;
}

/**
 * Matches every snapshot record in scope with the target (records an earlier run created: by the journal's id map;
 * recover: by id, then marker; migrate: by marker, then natural key) and classifies it. Matched records add to the id
 * map (a matched product's variants through their pairing), so the orders planned after them point at them. Records
 * restore created (matched by the journal or its marker) are brought to the snapshot whatever --update-existing says:
 * finishing its own work after a crash is not touching the target's records.
 */
export async function planRestore(
  source: RestoreSource,
  target: TargetShop,
  ids: IdMap,
  journal: Journal | undefined,
  options: PlanOptions,
  markers?: ProductMarkers,
): Promise<Plan> {
  const plan: Plan = { mode: options.mode, resources: {}, writes: 0, cannotRestore: {} };
  const planned = new PlannedIds(ids);
  for (const resource of RESOURCES) {
    const wanted = options.scope[resource];
    if (wanted !== 'all' && wanted.size === 0) continue;
    const resourcePlan: ResourcePlan = {
      counts: zero(PLAN_CLASSES),
      states: zero(STATES),
      rows: [],
      prune: [],
      writes: 0,
    };
    const matched = new Set<string>();
    for await (const { id, record } of source.records(resource)) {
      if (!inScope(options.scope, resource, id)) continue;
      const match = await matchOf(resource, id, record, target, ids, journal, options.mode, markers);
      const row = planRecord(resource, id, record, match, ids, planned, journal, options);
      if (row.class === 'create') planned.add(resource, record);
      if (row.target_id !== undefined) matched.add(row.target_id);
      resourcePlan.counts[row.class]++;
      for (const step of row.states ?? []) resourcePlan.states[step]++;
      resourcePlan.writes += writesOf(resource, row, record, target, ids, planned, options);
      resourcePlan.rows.push(row);
    }
    if (options.prune && options.mode === 'recover' && wanted === 'all') {
      for (const id of target.records[resource]?.keys() ?? []) {
        if (!matched.has(id)) resourcePlan.prune.push({ resource, target_id: id });
      }
      resourcePlan.writes += resourcePlan.prune.length;
    }
    plan.resources[resource] = resourcePlan;
    plan.cannotRestore[resource] = UNRESTORABLE[resource];
    plan.writes += resourcePlan.writes;
  }
  return plan;
}

type PlanMatch = Match<TargetRecord> | { kind: 'found'; by: 'journal'; target: TargetRecord };

/**
 * Where a snapshot record stands in the target: a record restore created (the journal's id map), else the index's
 * match (recover: id, then marker; migrate: marker, then natural key). A product's marker is not in the index until
 * read: the markers of its handle's family are read, and the match made again, when nothing else settles it (no id
 * or marker match) and it matters: the product has no match, its create is unsure in the journal, or the product its
 * handle matched differs from it (one equal to it needs nothing either way).
 */
async function matchOf(
  resource: ResourceName,
  id: string,
  record: JsonObject,
  target: TargetShop,
  ids: IdMap,
  journal: Journal | undefined,
  mode: RestoreMode,
  markers: ProductMarkers | undefined,
): Promise<PlanMatch> {
  const mapped = ids.target(resource, id);
  const mine = mapped === undefined ? undefined : target.records[resource]?.get(mapped);
  if (mine !== undefined) return { kind: 'found', by: 'journal', target: mine };
  const index = target.indexes[resource];
  if (index === undefined) return { kind: 'none' };
  const match = index.match(record, mode);
  const handle = typeof record.handle === 'string' ? record.handle : undefined;
  if (resource !== 'products' || markers === undefined || handle === undefined || !markers.unread(handle)) {
    return match;
  }
  if (match.kind === 'found' && (match.by === 'id' || match.by === 'marker')) return match;
  const unsure = journal?.state({ step: 'create', resource, id })?.state === 'unsure';
  if (
    match.kind === 'found' &&
    !unsure &&
    fieldDiff(resource, record, match.target.record, withMatch(id, record, match.target, ids)).length === 0
  ) {
    return match;
  }
  await markers.readFamily(handle);
  return index.match(record, mode);
}

function planRecord(
  resource: ResourceName,
  id: string,
  record: JsonObject,
  match: PlanMatch,
  ids: IdMap,
  planned: IdLookup,
  journal: Journal | undefined,
  options: PlanOptions,
): PlanRow {
  if (match.kind === 'ambiguous') {
    const ids = match.targets.map((found) => found.id).join(', ');
    return {
      resource,
      id,
      class: 'conflict',
      reason: `${match.targets.length} target records match its ${match.by}: ${ids}`,
    };
  }
  if (match.kind === 'taken') {
    return {
      resource,
      id,
      class: 'conflict',
      target_id: match.target.id,
      reason: `its ${match.by} is held by ${resource} ${match.target.id}, which restore created from snapshot record ${match.markedFor}`,
    };
  }
  const found: TargetRecord | undefined = match.kind === 'found' ? match.target : undefined;
  const ours = match.kind === 'found' && (match.by === 'journal' || match.by === 'marker');
  if (found !== undefined) noteMatch(resource, id, record, found, ids);
  const verdict = classify(resource, record, found?.record, options.mode, {
    ids,
    updateExisting: options.updateExisting || ours,
  });
  const row: PlanRow = {
    resource,
    id,
    class: verdict.action,
    ...(found === undefined ? {} : { target_id: found.id, matched_by: match.kind === 'found' ? match.by : '' }),
  };
  switch (verdict.action) {
    case 'create': {
      const created = journal?.state({ step: 'create', resource, id });
      if (created?.state === 'unsure') {
        row.reason = `an earlier run sent its create at ${created.since} and got no answer: the shop is searched for it first`;
      }
      const notes = resource === 'orders' ? orderCreateBody(record, planned).notes : [];
      if (notes.length > 0) row.cannot_roll_back = notes;
      const states = resource === 'orders' ? orderStateSteps(record, undefined) : undefined;
      if (states !== undefined) withStates(row, states.steps, states.cannot);
      return row;
    }
    case 'unchanged':
      return row;
    case 'conflict':
      return { ...row, reason: verdict.reason };
  }
  row.changes = verdict.diff ?? [];
  const cannot = (verdict.cannotRollBack ?? []).map((change) => ({ path: change.path, reason: change.reason }));
  if (cannot.length > 0) row.cannot_roll_back = cannot;
  if (verdict.action === 'skip') return { ...row, reason: verdict.reason };
  if (resource === 'orders' && found !== undefined) withStates(row, orderUpdate(record, found.record, ids).steps, []);
  return row;
}

/** A matched record's place in the id map, and its variants' (paired by id map or option values) for the orders. */
function noteMatch(resource: ResourceName, id: string, record: JsonObject, found: TargetRecord, ids: IdMap): void {
  ids.set(resource, id, found.id);
  if (resource !== 'products') return;
  for (const [from, to] of pairedVariants(record, found, ids)) ids.set('variants', from, to);
}

/** The id map as noteMatch would leave it for a product matched to `found`, without changing it. */
function withMatch(id: string, record: JsonObject, found: TargetRecord, ids: IdLookup): IdLookup {
  const variants = new Map(pairedVariants(record, found, ids));
  return {
    target: (kind, sourceId) =>
      kind === 'products' && sourceId === id
        ? found.id
        : ((kind === 'variants' ? variants.get(sourceId) : undefined) ?? ids.target(kind, sourceId)),
  };
}

function pairedVariants(record: JsonObject, found: TargetRecord, ids: IdLookup): Array<[string, string]> {
  return pairVariants(record, found.record, ids).flatMap((pair) => {
    const from = idText(pair.snapshot?.id);
    const to = idText(pair.target?.id);
    return from !== undefined && to !== undefined ? [[from, to] as [string, string]] : [];
  });
}

function withStates(
  row: PlanRow,
  steps: ReadonlyArray<{ action: StateStep }>,
  cannot: ReadonlyArray<{ field: string; reason: string }>,
): void {
  if (steps.length > 0) row.states = steps.map((step) => step.action);
  if (cannot.length > 0) {
    row.cannot_roll_back = [
      ...(row.cannot_roll_back ?? []),
      ...cannot.map((c) => ({ path: `$.${c.field}`, reason: c.reason })),
    ];
  }
}

/**
 * The writes one row sends, before any retry or lookup: a create and its follow-ups (a product's image links, a
 * customer's activation URL, an order's email when it is created without a customer, its states); an update's PUT,
 * the variants a product lost and an order's states.
 */
function writesOf(
  resource: ResourceName,
  row: PlanRow,
  record: JsonObject,
  target: TargetShop,
  ids: IdMap,
  planned: IdLookup,
  options: PlanOptions,
): number {
  const states = row.states?.length ?? 0;
  if (row.class === 'update') {
    const held = target.records[resource]?.get(row.target_id as string)?.record as JsonObject;
    if (resource === 'customers') return customerUpdate(record, held, ids).body === undefined ? 0 : 1;
    if (resource === 'orders') return (orderUpdate(record, held, ids).body === undefined ? 0 : 1) + states;
    // Lost variants are re-created first; the PUT after them sees them (see the executor).
    const lost = lostVariants(record, held, ids).length;
    return lost + (lost > 0 || productUpdate(record, held, ids, { prune: options.prune }).body !== undefined ? 1 : 0);
  }
  if (row.class !== 'create') return 0;
  if (resource === 'products') return 1 + (hasImageLinks(record) ? 1 : 0);
  if (resource === 'customers') return 1 + (options.activationUrls ? 1 : 0);
  return 1 + (guestEmail(record, planned) === undefined ? 0 : 1) + states;
}

/**
 * The id map as it will be once the plan's creates are written: a record planned for create (and a planned product's
 * variants) has a counterpart, so an order is planned as it will be written (its notes, its email's follow-up).
 */
class PlannedIds implements IdLookup {
  readonly #planned = new Set<string>();

  constructor(private readonly ids: IdMap) {}

  add(resource: ResourceName, record: JsonObject): void {
    this.#planned.add(`${resource} ${idText(record.id)}`);
    if (resource !== 'products') return;
    for (const variant of children(record.variants)) this.#planned.add(`variants ${idText(variant.id)}`);
  }

  target(kind: IdKind, sourceId: string): string | undefined {
    return this.ids.target(kind, sourceId) ?? (this.#planned.has(`${kind} ${sourceId}`) ? PLANNED : undefined);
  }
}

/** The target id of a record not created yet, in the plan's eyes (never sent: plan-time bodies are not written). */
const PLANNED = '0';

/** Whether a product's images show some of its variants: the links need the variants' new ids, a write of their own. */
function hasImageLinks(product: JsonObject): boolean {
  return children(product.images).some((image) => Array.isArray(image.variant_ids) && image.variant_ids.length > 0);
}

function zero<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}
