import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/shopify/resources.js';
import {
  describeSchema,
  EXTRA_COLUMN,
  POSITION_COLUMN,
  SCHEMA_VERSION,
  TABLES,
  tableByName,
  tablesFor,
} from '../../src/transform/index.js';
import { createTable, SchemaDeclarationError } from '../../src/transform/schema.js';

describe('table declarations', () => {
  it('flattens nested shapes into prefixed columns, parent key and position first, _extra last', () => {
    const table = createTable({
      name: 'things',
      resource: 'orders',
      parent: { table: 'orders', key: 'order_id', field: 'things' },
      shape: { id: 'int64', price_set: { shop_money: { amount: 'decimal' } } },
    });
    expect(table.columns).toEqual([
      { name: 'order_id', type: 'int64' },
      { name: POSITION_COLUMN, type: 'int32' },
      { name: 'id', type: 'int64' },
      { name: 'price_set_shop_money_amount', type: 'decimal' },
      { name: EXTRA_COLUMN, type: 'json' },
    ]);
  });

  it('rejects two fields that flatten into one column name', () => {
    expect(() => createTable({ name: 't', resource: 'orders', shape: { a_b: 'string', a: { b: 'string' } } })).toThrow(
      SchemaDeclarationError,
    );
  });

  it.each([
    ['products', ['products', 'product_variants', 'product_images', 'product_options']],
    ['customers', ['customers', 'customer_addresses']],
    [
      'orders',
      [
        'orders',
        'order_line_items',
        'order_shipping_lines',
        'order_tax_lines',
        'order_discount_codes',
        'order_discount_applications',
        'order_fulfillments',
        'order_refunds',
        'order_refund_transactions',
        'order_refund_line_items',
        'order_note_attributes',
      ],
    ],
  ] as const)('%s fills its parent table first, then its child tables', (resource, names) => {
    expect(tablesFor(resource).map((table) => table.name)).toEqual(names);
  });

  it('names every table once, and every child table has its parent key and position', () => {
    expect(new Set(TABLES.map((table) => table.name)).size).toBe(TABLES.length);
    for (const table of TABLES) {
      expect(tableByName(table.name)).toBe(table);
      expect(table.columns.at(-1)?.name).toBe(EXTRA_COLUMN);
      if (table.parent === undefined) {
        expect(table.columns[0]).toEqual({ name: 'id', type: 'int64' });
      } else {
        expect(table.columns.slice(0, 2).map((column) => column.name)).toEqual([table.parent.key, POSITION_COLUMN]);
        expect(tableByName(table.parent.table)?.resource).toBe(table.resource);
      }
    }
    expect(tableByName('nope')).toBeUndefined();
  });
});

describe('describeSchema', () => {
  it('prints every table and column with its type as text', () => {
    const text = describeSchema('text');
    expect(text.endsWith('\n')).toBe(true);
    for (const table of TABLES) {
      expect(text).toContain(`\n${table.name} (resource ${table.resource}`);
    }
    expect(text).toMatch(/\n {2}total_price_set_shop_money_amount +decimal +DECIMAL\(18,4\)\n/);
    expect(text).toMatch(/\n {2}created_at +timestamp +TIMESTAMPTZ\n/);
  });

  it('prints the same as JSON for tools', () => {
    const described = JSON.parse(describeSchema('json'));
    expect(described.schema_version).toBe(SCHEMA_VERSION);
    expect(described.tables.map((table: { name: string }) => table.name)).toEqual(TABLES.map((table) => table.name));
    const lineItems = described.tables.find((table: { name: string }) => table.name === 'order_line_items');
    expect(lineItems.parent).toEqual({ table: 'orders', key: 'order_id' });
    expect(lineItems.columns[0]).toEqual({ name: 'order_id', type: 'int64', sql_type: 'BIGINT' });
    expect(RESOURCES.every((resource) => described.tables.some((t: { name: string }) => t.name === resource))).toBe(
      true,
    );
  });
});
