import { readFileSync } from 'node:fs';
import { type JsonObject, parseJson } from '../../src/shopify/json.js';
import { type ResourceName, SINGULAR } from '../../src/shopify/resources.js';

/** The record of `test/fixtures/api/<singular>.json` (Shopify's own 2022-01 example bodies), parsed losslessly. */
export function apiFixture(resource: ResourceName): JsonObject {
  const name = SINGULAR[resource];
  const text = readFileSync(new URL(`../fixtures/api/${name}.json`, import.meta.url), 'utf8');
  return (parseJson(text) as JsonObject)[name] as JsonObject;
}
