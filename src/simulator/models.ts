import type { JsonObject, JsonValue } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import type { GenContext } from './generate/context.js';
import { buildCustomer, customerFacts } from './generate/customer.js';
import type { BaseFacts, CustomerFacts, OrderFacts, ProductFacts } from './generate/facts.js';
import { buildOrder, orderFacts } from './generate/order.js';
import { buildProduct, productFacts } from './generate/product.js';
import { formatUtcCursorTime, servedTimeMs } from './shop-time.js';

export type SortValue = number | string | bigint;

/** Orders numbers, bigints and strings (by UTF-16 code units, like a binary collation). */
export function compareSortValues(a: SortValue, b: SortValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * How a list is ordered, and how its position is written into a page_info cursor. Shopify's cursors carry the sort
 * key of the last record (`last_value`) plus its id (`last_id`), so paging resumes after that key, not at an offset.
 */
export interface SortSpec<F extends BaseFacts> {
  readonly kind: 'default' | 'id';
  readonly descending: boolean;
  value(facts: F): SortValue;
  cursorValue(facts: F): JsonValue;
  /** The sort value a cursor carries, or undefined when the cursor cannot belong to this sort. */
  parseCursorValue(value: JsonValue): SortValue | undefined;
}

/** A kind of record: how to derive facts and records from an index, and facts back from a served record. */
export interface ResourceModel<F extends BaseFacts> {
  readonly name: ResourceName;
  readonly size: number;
  readonly kind: number;
  facts(index: number): F;
  build(facts: F): JsonObject;
  factsOf(record: JsonObject): F;
  readonly defaultSort: SortSpec<F>;
  readonly idSort: SortSpec<F>;
}

export function idSort<F extends BaseFacts>(): SortSpec<F> {
  return {
    kind: 'id',
    descending: false,
    value: (facts) => facts.id,
    cursorValue: (facts) => facts.id.toString(),
    parseCursorValue: (value) =>
      (typeof value === 'string' && /^\d{1,20}$/.test(value)) || typeof value === 'number' || typeof value === 'bigint'
        ? BigInt(value)
        : undefined,
  };
}

export function idOfRecord(record: JsonObject): bigint {
  const id = record.id;
  return typeof id === 'bigint' ? id : BigInt(id as number);
}

function optionalId(value: JsonValue | undefined): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return null;
}

function timeOrNull(value: JsonValue | undefined): number | null {
  return typeof value === 'string' ? servedTimeMs(value) : null;
}

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

function textOrNull(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

export function productModel(ctx: GenContext): ResourceModel<ProductFacts> {
  return {
    name: 'products',
    size: ctx.sizes.products,
    kind: 1,
    facts: (index) => productFacts(ctx, index),
    build: (facts) => buildProduct(ctx, facts),
    factsOf: (record) => ({
      index: -1,
      id: idOfRecord(record),
      title: text(record.title),
      handle: text(record.handle),
      vendor: text(record.vendor),
      productType: text(record.product_type),
      status: text(record.status),
      createdMs: servedTimeMs(record.created_at),
      updatedMs: servedTimeMs(record.updated_at),
      publishedMs: timeOrNull(record.published_at),
    }),
    defaultSort: {
      kind: 'default',
      descending: false,
      value: (facts) => facts.title,
      cursorValue: (facts) => facts.title,
      parseCursorValue: (value) => (typeof value === 'string' ? value : undefined),
    },
    idSort: idSort(),
  };
}

export function customerModel(ctx: GenContext): ResourceModel<CustomerFacts> {
  return {
    name: 'customers',
    size: ctx.sizes.customers,
    kind: 2,
    facts: (index) => customerFacts(ctx, index),
    build: (facts) => buildCustomer(ctx, facts),
    factsOf: (record) => {
      const address = record.default_address as JsonObject | null | undefined;
      return {
        index: -1,
        id: idOfRecord(record),
        firstName: textOrNull(record.first_name),
        lastName: textOrNull(record.last_name),
        email: textOrNull(record.email),
        phone: textOrNull(record.phone),
        state: text(record.state),
        tags: text(record.tags),
        verifiedEmail: record.verified_email === true,
        acceptsMarketing: record.accepts_marketing === true,
        country: address ? textOrNull(address.country) : null,
        ordersCount: typeof record.orders_count === 'number' ? record.orders_count : 0,
        createdMs: servedTimeMs(record.created_at),
        updatedMs: servedTimeMs(record.updated_at),
      };
    },
    // Shopify's customer cursors carry updated_at as epoch milliseconds, newest first.
    defaultSort: {
      kind: 'default',
      descending: true,
      value: (facts) => facts.updatedMs,
      cursorValue: (facts) => facts.updatedMs,
      parseCursorValue: (value) => (typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined),
    },
    idSort: idSort(),
  };
}

const CURSOR_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export function orderModel(ctx: GenContext): ResourceModel<OrderFacts> {
  return {
    name: 'orders',
    size: ctx.sizes.orders,
    kind: 3,
    facts: (index) => orderFacts(ctx, index),
    build: (facts) => buildOrder(ctx, facts),
    factsOf: (record) => {
      const customer = record.customer as JsonObject | null | undefined;
      return {
        index: -1,
        id: idOfRecord(record),
        createdMs: servedTimeMs(record.created_at),
        updatedMs: servedTimeMs(record.updated_at),
        processedMs: servedTimeMs(record.processed_at),
        closedMs: timeOrNull(record.closed_at),
        cancelledMs: timeOrNull(record.cancelled_at),
        financialStatus: text(record.financial_status),
        fulfillmentStatus: textOrNull(record.fulfillment_status),
        customerId: customer ? optionalId(customer.id) : null,
        name: text(record.name),
        appId: typeof record.app_id === 'number' ? record.app_id : null,
      };
    },
    // Shopify's order cursors carry created_at as a UTC "YYYY-MM-DD HH:MM:SS" string, newest first.
    defaultSort: {
      kind: 'default',
      descending: true,
      value: (facts) => facts.createdMs,
      cursorValue: (facts) => formatUtcCursorTime(facts.createdMs),
      parseCursorValue: (value) => {
        if (typeof value !== 'string' || !CURSOR_TIME.test(value)) return undefined;
        const ms = Date.parse(`${value.replace(' ', 'T')}Z`);
        return Number.isNaN(ms) ? undefined : ms;
      },
    },
    idSort: idSort(),
  };
}

/** The model with `fields` appended to every record it builds (a newer API version's additions). */
export function withUnknownFields<F extends BaseFacts>(model: ResourceModel<F>, fields: JsonObject): ResourceModel<F> {
  if (Object.keys(fields).length === 0) return model;
  return { ...model, build: (facts) => ({ ...model.build(facts), ...fields }) };
}
