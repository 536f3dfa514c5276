import type { JsonObject, JsonValue } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { type Cell, type Row, toCell } from './cells.js';
import { type ColumnType, type DeclaredTable, EXTRA_COLUMN, POSITION_COLUMN, type Shape } from './schema.js';
import { TABLES, tablesFor } from './tables/index.js';

export interface ShapedRecord {
  /** One row for the record's parent table, then one per element of each child array, in array order. */
  rows: { table: string; row: Row }[];
  /** Fields kept in `_extra` because the schema does not know them or could not type them exactly. */
  unknownFields: number;
  /** Where those fields were, as `<table>.<field path>` (`orders.billing_address.geo`); empty when none. */
  unknownPaths: string[];
}

type FieldPlan =
  | { kind: 'column'; column: string; type: ColumnType }
  | { kind: 'object'; fields: ObjectPlan; innerPath: string }
  | { kind: 'child'; plan: TablePlan }
  | { kind: 'parent-key' }
  | { kind: 'position' };

type ObjectPlan = Map<string, FieldPlan>;

interface TablePlan {
  table: DeclaredTable;
  fields: ObjectPlan;
  /** Makes a row with every column null, so every row lists every column. */
  newRow: () => Row;
}

/** `prefix` names the columns (`customer_default_address_`), `path` the fields (`customer.default_address.`). */
function objectPlan(shape: Shape, prefix: string, path: string): ObjectPlan {
  const plan: ObjectPlan = new Map();
  for (const [field, type] of Object.entries(shape)) {
    plan.set(
      field,
      typeof type === 'string'
        ? { kind: 'column', column: prefix + field, type }
        : {
            kind: 'object',
            fields: objectPlan(type, `${prefix}${field}_`, `${path}${field}.`),
            innerPath: `${path}${field}.`,
          },
    );
  }
  return plan;
}

function tablePlan(table: DeclaredTable): TablePlan {
  const fields = objectPlan(table.shape, '', '');
  if (table.parent) {
    fields.set(table.parent.key, { kind: 'parent-key' });
    fields.set(POSITION_COLUMN, { kind: 'position' });
  }
  for (const child of TABLES.filter((candidate) => candidate.parent?.table === table.name)) {
    fields.set(child.field as string, { kind: 'child', plan: tablePlan(child) });
  }
  return { table, fields, newRow: rowFactory(table) };
}

/**
 * A constructor generated from the declared column names (our own constants, quoted with JSON.stringify): rows of
 * 200+ columns then share one hidden class with in-object fields. Copying a template object instead costs ~40× more
 * (measured: 1.4 µs against 55 µs per order row), which alone would exceed the time budget of a whole record.
 */
function rowFactory(table: DeclaredTable): () => Row {
  const body = table.columns.map((column) => `this[${JSON.stringify(column.name)}] = null;`).join('\n');
  const RowOf = new Function(body) as unknown as new () => Row;
  return () => new RowOf();
}

const PLANS = new Map<ResourceName, TablePlan>(
  RESOURCES.map((resource) => {
    const root = tablesFor(resource).find((table) => table.parent === undefined) as DeclaredTable;
    return [resource, tablePlan(root)];
  }),
);

/** Per-call bookkeeping of fields that went to `_extra`. */
interface Unknowns {
  count: number;
  paths: string[];
}

/**
 * Flattens one API record into rows of its resource's tables. Pure and total: every field of the record ends up in a
 * typed column, in a child table, or in the `_extra` JSON column of its row (and is counted), so nothing is dropped and
 * no value is coerced. Child rows carry the parent's `id` and their 1-based array position; an element's own field of
 * the same name is checked against them and kept in `_extra` when it differs.
 */
export function toRows(resource: ResourceName, record: JsonObject): ShapedRecord {
  const plan = PLANS.get(resource) as TablePlan;
  const rows: { table: string; row: Row }[] = [];
  const unknowns: Unknowns = { count: 0, paths: [] };
  shapeRow(plan, record, rows, unknowns, null, 0);
  return { rows, unknownFields: unknowns.count, unknownPaths: unknowns.paths };
}

function shapeRow(
  plan: TablePlan,
  source: JsonObject,
  rows: { table: string; row: Row }[],
  unknowns: Unknowns,
  parentId: Cell,
  position: number,
): void {
  const row = plan.newRow();
  const key = plan.table.parent?.key;
  if (key !== undefined) {
    row[key] = parentId;
    row[POSITION_COLUMN] = position;
  }
  rows.push({ table: plan.table.name, row });
  let childArrays: [TablePlan, JsonValue[]][] | undefined;
  let extra: JsonObject | undefined;
  for (const field in source) {
    const value = source[field] as JsonValue;
    const entry = plan.fields.get(field);
    if (entry?.kind === 'column' || entry?.kind === 'object') {
      const kept = fillField(entry, value, row, unknowns, plan.table.name, '', field);
      if (kept !== undefined) extra = withExtra(extra, field, kept);
      continue;
    }
    if (entry?.kind === 'child' && Array.isArray(value)) {
      childArrays ??= [];
      childArrays.push([entry.plan, value]);
      continue;
    }
    const fits =
      entry?.kind === 'child'
        ? value === null
        : entry?.kind === 'parent-key'
          ? toCell('int64', value) === parentId
          : entry?.kind === 'position' && value === position;
    if (!fits) {
      extra = withExtra(extra, field, value);
      unknowns.count++;
      unknowns.paths.push(`${plan.table.name}.${field}`);
    }
  }
  if (extra !== undefined) row[EXTRA_COLUMN] = toCell('json', extra) as string;
  if (childArrays === undefined) return;
  const id = row.id ?? null;
  for (const [childPlan, elements] of childArrays) {
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i] as JsonValue;
      if (isObject(element)) shapeRow(childPlan, element, rows, unknowns, id, i + 1);
      else shapeRow(childPlan, { _element: element }, rows, unknowns, id, i + 1);
    }
  }
}

/**
 * Stores one declared (column or nested object) field into the row. Returns what has to be kept in `_extra` for it:
 * the whole value when it does not fit, or for a nested object only its unknown or mistyped parts.
 */
function fillField(
  entry: FieldPlan & ({ kind: 'column' } | { kind: 'object' }),
  value: JsonValue,
  row: Row,
  unknowns: Unknowns,
  table: string,
  parentPath: string,
  field: string,
): JsonValue | undefined {
  if (entry.kind === 'column') {
    const cell = toCell(entry.type, value);
    if (cell !== undefined) {
      row[entry.column] = cell;
      return undefined;
    }
  } else if (value === null) {
    return undefined;
  } else if (isObject(value)) {
    let extra: JsonObject | undefined;
    for (const inner in value) {
      const innerValue = value[inner] as JsonValue;
      const innerEntry = entry.fields.get(inner);
      if (innerEntry?.kind === 'column' || innerEntry?.kind === 'object') {
        const kept = fillField(innerEntry, innerValue, row, unknowns, table, entry.innerPath, inner);
        if (kept !== undefined) extra = withExtra(extra, inner, kept);
      } else {
        extra = withExtra(extra, inner, innerValue);
        unknowns.count++;
        unknowns.paths.push(`${table}.${entry.innerPath}${inner}`);
      }
    }
    return extra;
  }
  unknowns.count++;
  unknowns.paths.push(`${table}.${parentPath}${field}`);
  return value;
}

/** Without a prototype, so a field named `__proto__` is kept as a field like any other. */
function withExtra(extra: JsonObject | undefined, field: string, value: JsonValue): JsonObject {
  const kept = extra ?? (Object.create(null) as JsonObject);
  kept[field] = value;
  return kept;
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
