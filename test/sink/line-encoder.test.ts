import { describe, expect, it } from 'vitest';
import { type JsonObject, parseJson, stringifyJson } from '../../src/shopify/json.js';
import { RESOURCES, type ResourceName } from '../../src/shopify/resources.js';
import { createContext } from '../../src/simulator/generate/context.js';
import { customerModel, orderModel, productModel } from '../../src/simulator/models.js';
import { cellsOf, LineEncoder } from '../../src/sink/row-serializer.js';
import type { Cell, Row } from '../../src/transform/cells.js';
import { type DeclaredTable, tablesFor, toRows } from '../../src/transform/index.js';
import { createRecordWalker, type UnknownFields } from '../../src/transform/to-rows.js';
import { apiFixture } from '../helpers/api-fixtures.js';

const ctx = createContext(7, { products: 60, customers: 60, orders: 300 }, 0.2);
const models = { products: productModel(ctx), customers: customerModel(ctx), orders: orderModel(ctx) };

/** Generated records, Shopify's example, and records holding what a careless encoder gets wrong. */
function recordsOf(resource: ResourceName): JsonObject[] {
  const model = models[resource] as (typeof models)['orders'];
  const generated = Array.from({ length: model.size }, (_, index) => model.build(model.facts(index)));
  const hostile = parseJson(
    JSON.stringify({
      ...apiFixture(resource),
      note: 'quote " backslash \\ NUL \u0000 tab \t line\nbreak lone \ud800 pair 😀 U+2028 \u2028 DEL \u007f',
      title: 'Müller & Söhne — 株式会社 "x"',
      unknown_field: { nested: [1, 2.5, -0, 1e21, 'x\u001f'] },
      tags: 123,
    }).replace(/"id":\d+/, '"id":9223372036854775807'),
  ) as JsonObject;
  return [...generated, apiFixture(resource), hostile];
}

/** A row's line as the NDJSON format defines it: its non-null cells, in column order, as JSON (bigints bare). */
function referenceLine(row: Row): string {
  return stringifyJson(Object.fromEntries(Object.entries(row).filter(([, cell]) => cell !== null)));
}

describe('LineEncoder', () => {
  it.each(RESOURCES)(
    '%s: the walker’s cells and toRows’ row objects encode to the same line, the JSON of the row',
    (resource) => {
      const encoders = new Map(tablesFor(resource).map((table) => [table.name, new LineEncoder(table)]));
      const fromCells: string[] = [];
      const walk = createRecordWalker(resource, ({ table, cells }) => {
        const encoder = encoders.get(table.name) as LineEncoder;
        encoder.add(cells);
        fromCells.push(encoder.take().toString('utf8'));
      });
      let rows = 0;
      for (const record of recordsOf(resource)) {
        fromCells.length = 0;
        const unknowns: UnknownFields = { count: 0, paths: undefined };
        walk(record, unknowns);
        const shaped = toRows(resource, record);
        expect(unknowns.count).toBe(shaped.unknownFields);
        const fromRows = shaped.rows.map(({ table, row }) => {
          const encoder = encoders.get(table) as LineEncoder;
          const schema = tablesFor(resource).find((candidate) => candidate.name === table) as DeclaredTable;
          encoder.add(cellsOf(schema, row));
          return encoder.take().toString('utf8');
        });
        expect(fromCells).toEqual(fromRows);
        expect(fromRows).toEqual(shaped.rows.map(({ row }) => `${referenceLine(row)}\n`));
        rows += fromRows.length;
      }
      expect(rows).toBeGreaterThan(100);
    },
  );

  it('adds nothing for a row with a cell of the wrong type, and goes on', () => {
    const table = tablesFor('customers')[0];
    if (table === undefined) throw new Error('no customers table');
    const encoder = new LineEncoder(table);
    encoder.add(cellsOf(table, { id: 1, email: 'a@example.com' }));
    const bad: Cell[] = cellsOf(table, { id: 2, email: 5 as unknown as string });
    expect(() => encoder.add(bad)).toThrow(/customers\.email: a number cell does not fit column type string/);
    encoder.add(cellsOf(table, { id: 3 }));
    expect(encoder.lines).toBe(2);
    expect(encoder.take().toString('utf8')).toBe('{"id":1,"email":"a@example.com"}\n{"id":3}\n');
  });

  it('grows past its first buffer for a row larger than it', () => {
    const table = tablesFor('customers')[0];
    if (table === undefined) throw new Error('no customers table');
    const encoder = new LineEncoder(table);
    const note = 'é'.repeat(100_000);
    encoder.add(cellsOf(table, { id: 1, note }));
    expect(parseJson(encoder.take().toString('utf8'))).toEqual({ id: 1, note });
  });
});
