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

const changed = (removed: number, added = 0): NonNullable<Manifest['changes']> => ({
  since: '20260101T000000000Z',
  resources: { orders: { added, removed, changed: 0 } },
});

describe('detectShrink', () => {
  it.each([
    ['no previous snapshot', undefined, { orders: summary(1) }, undefined, []],
    ['growth', { orders: summary(100) }, { orders: summary(150) }, undefined, []],
    ['a normal dip', { orders: summary(100) }, { orders: summary(60) }, undefined, []],
    [
      'orders halved (read_all_orders revoked), no index to compare',
      { orders: summary(1000) },
      { orders: summary(400) },
      undefined,
      [{ resource: 'orders', previous: 1000, current: 400, removed: 600 }],
    ],
    [
      'most orders gone and as many new ones: the count holds, the removals show',
      { orders: summary(1000) },
      { orders: summary(1000) },
      changed(700, 700),
      [{ resource: 'orders', previous: 1000, current: 1000, removed: 700 }],
    ],
    [
      'half gone, by the index: not more than half',
      { orders: summary(1000) },
      { orders: summary(500) },
      changed(500),
      [],
    ],
    ['a resource not in the previous snapshot', { products: summary(10) }, { orders: summary(0) }, undefined, []],
    ['an empty previous resource', { orders: summary(0) }, { orders: summary(0) }, undefined, []],
  ] as const)('%s', (_name, previous, current, changes, expected) => {
    const before = previous === undefined ? undefined : manifestWith(previous);
    expect(detectShrink(before, current, changes)).toEqual(expected);
  });
});
