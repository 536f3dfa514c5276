import { describe, expect, it } from 'vitest';
import type { Manifest, ResourceSummary } from '../../src/snapshot/manifest.js';
import { detectShrink } from '../../src/snapshot/previous.js';

function summary(exported: number): ResourceSummary {
  return {
    count_before: exported,
    count_after: exported,
    exported,
    check: 'ok',
    drift: 0,
    duplicates_dropped: 0,
    unknown_fields: 0,
    requests: 1,
    filters: {},
  };
}

function manifestWith(resources: Manifest['resources']): Manifest {
  return {
    format: 'shopsnap.manifest/v1',
    status: 'complete',
    shop: 's',
    api_version: '2022-01',
    snapshot_id: '20260101T000000000Z',
    schema_version: 1,
    started_at: '',
    finished_at: '',
    resources,
    tables: {},
    files: [],
  };
}

describe('detectShrink', () => {
  it.each([
    ['no previous snapshot', undefined, { orders: summary(1) }, []],
    ['growth', { orders: summary(100) }, { orders: summary(150) }, []],
    ['a normal dip', { orders: summary(100) }, { orders: summary(60) }, []],
    [
      'orders halved (read_all_orders revoked)',
      { orders: summary(1000) },
      { orders: summary(400) },
      [{ resource: 'orders', previous: 1000, current: 400 }],
    ],
    ['a resource not in the previous snapshot', { products: summary(10) }, { orders: summary(0) }, []],
    ['an empty previous resource', { orders: summary(0) }, { orders: summary(0) }, []],
  ] as const)('%s', (_name, previous, current, expected) => {
    expect(detectShrink(previous === undefined ? undefined : manifestWith(previous), current)).toEqual(expected);
  });
});
