import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { fieldDiff } from '../../src/restore/records/field-diff.js';
import { type IdKind, idText } from '../../src/restore/records/ids.js';
import { children, optionsKey } from '../../src/restore/records/pairing.js';
import { isJsonObject, type JsonObject, parseJson } from '../../src/shopify/json.js';
import { RESOURCES, type ResourceName } from '../../src/shopify/resources.js';
import type { RunningShop } from '../../src/simulator/index.js';
import { runCli } from './cli.js';
import { gunzipLines } from './snapshot-files.js';

export type Records = Record<ResourceName, JsonObject[]>;

/** A backup of the shop with the built CLI into `out`: the snapshot's location. */
export async function backupShop(shop: RunningShop, out: string): Promise<string> {
  const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--json'], {
    env: { SHOPSNAP_TOKEN: shop.token },
  });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).location;
}

/** Every record of a snapshot's raw archive, parsed exactly (ids above 2^53 as bigint). */
export async function snapshotRecords(location: string): Promise<Records> {
  const records: Records = { products: [], customers: [], orders: [] };
  for (const resource of RESOURCES) {
    const dir = join(location, 'raw', resource);
    for (const name of (await readdir(dir).catch(() => [])).sort()) {
      for (const line of await gunzipLines(join(dir, name))) records[resource].push(parseJson(line) as JsonObject);
    }
  }
  return records;
}

/** What identifies a record across shops, whatever its ids: a product's handle, a customer's email (or phone), an order's name. */
export function naturalKey(resource: ResourceName, record: JsonObject): string {
  if (resource === 'products') return String(record.handle);
  if (resource === 'customers')
    return String(record.email ?? record.phone ?? `${record.first_name} ${record.last_name}`);
  return String(record.name);
}

/**
 * Where two shops' copies of the same records differ, matched by natural key alone (not by anything restore wrote):
 * each source record must have exactly one counterpart, equal on every restorable field, its references (line items'
 * variants and products, the order's customer, image links) pointing at the counterparts of what they pointed at.
 * Returns one line per problem; none when the copies agree.
 */
export function differencesByNaturalKey(source: Records, target: Records): string[] {
  const problems: string[] = [];
  const counterpart = new Map<string, JsonObject>();
  for (const resource of RESOURCES) {
    const byKey = new Map<string, JsonObject[]>();
    for (const record of target[resource]) {
      const key = naturalKey(resource, record);
      byKey.set(key, [...(byKey.get(key) ?? []), record]);
    }
    for (const record of source[resource]) {
      const found = byKey.get(naturalKey(resource, record)) ?? [];
      if (found.length !== 1) problems.push(`${resource} ${naturalKey(resource, record)}: ${found.length} copies`);
      else counterpart.set(`${resource} ${idText(record.id)}`, found[0] as JsonObject);
    }
    if (target[resource].length !== source[resource].length) {
      problems.push(`${resource}: ${source[resource].length} in the source, ${target[resource].length} in the target`);
    }
  }
  const maps: Record<IdKind, Map<string, string>> = {
    products: new Map(),
    variants: new Map(),
    images: new Map(),
    customers: new Map(),
    orders: new Map(),
  };
  for (const resource of RESOURCES) {
    for (const record of source[resource]) {
      const copy = counterpart.get(`${resource} ${idText(record.id)}`);
      if (copy === undefined) continue;
      maps[resource].set(idText(record.id) as string, idText(copy.id) as string);
      if (resource !== 'products') continue;
      const variants = new Map(children(copy.variants).map((variant) => [optionsKey(variant), idText(variant.id)]));
      for (const variant of children(record.variants)) {
        const id = variants.get(optionsKey(variant));
        if (id !== undefined) maps.variants.set(idText(variant.id) as string, id);
      }
      const images = children(copy.images);
      children(record.images).forEach((image, k) => {
        const id = idText(images[k]?.id);
        if (id !== undefined) maps.images.set(idText(image.id) as string, id);
      });
    }
  }
  const ids = { target: (kind: IdKind, sourceId: string) => maps[kind].get(sourceId) };
  for (const resource of RESOURCES) {
    for (const record of source[resource]) {
      const copy = counterpart.get(`${resource} ${idText(record.id)}`);
      if (copy === undefined) continue;
      for (const change of fieldDiff(resource, record, copy, ids)) {
        problems.push(
          `${resource} ${naturalKey(resource, record)} ${change.path}: ${show(change.before)} → ${show(change.after)}`,
        );
      }
    }
  }
  return problems;
}

function show(value: unknown): string {
  return isJsonObject(value as never) || Array.isArray(value) ? JSON.stringify(value, bigints) : String(value);
}

function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
