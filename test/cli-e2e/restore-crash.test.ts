import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../../src/crash-point.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { type RunningShop, type ShopOptions, startShop, uniformLatency } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import {
  backupShop,
  differencesByNaturalKey,
  naturalKey,
  type Records,
  snapshotRecords,
} from '../helpers/restore-compare.js';

const SOURCE: ShopOptions = {
  seed: 33,
  products: 5,
  customers: 6,
  orders: 12,
  bigIdShare: 0.3,
  token: 'shpat_crash_src_2b',
};
/** Writes take a moment, so several are in flight at once (the mid-batch point needs them). */
const TARGET: ShopOptions = {
  products: 0,
  customers: 0,
  orders: 0,
  token: 'shpat_crash_dst_8f',
  latency: uniformLatency(15),
};

let work: string;
let source: RunningShop;
let snapshot: string;
/** What an uninterrupted restore of the snapshot into an empty shop leaves there. */
let reference: Records;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-restore-crash-'));
  source = await startShop(SOURCE);
  snapshot = await backup(source, 'source');
  const target = await startShop(TARGET);
  try {
    // Complete (exit 0) and equal to the source: what every interrupted restore must end as.
    const result = await restore(target, 'reference');
    expect(result.code, result.stderr).toBe(0);
    reference = await snapshotRecords(await backup(target, 'reference-copy'));
    expect(differencesByNaturalKey(await snapshotRecords(snapshot), reference)).toEqual([]);
  } finally {
    await target.close();
  }
});

afterAll(async () => {
  await source.close();
  await rm(work, { recursive: true, force: true });
});

function backup(shop: RunningShop, folder: string): Promise<string> {
  return backupShop(shop, join(work, folder));
}

function restore(target: RunningShop, state: string, env: Record<string, string> = {}, args: string[] = []) {
  return runCli(['restore', snapshot, '--shop', target.url, '--state', join(work, state), '--yes', '--json', ...args], {
    env: { SHOPSNAP_TOKEN: target.token, ...env },
  });
}

/** The target holds each record of the snapshot once, as an uninterrupted restore leaves it. */
async function expectAsUninterrupted(target: RunningShop, folder: string): Promise<void> {
  const records = await snapshotRecords(await backup(target, folder));
  for (const resource of RESOURCES) {
    const keys = records[resource].map((record) => naturalKey(resource, record));
    expect(new Set(keys).size, `${resource}: nothing twice`).toBe(keys.length);
    expect(target.count(resource), resource).toBe(reference[resource].length);
  }
  expect(differencesByNaturalKey(reference, records)).toEqual([]);
}

describe('a restore killed with SIGKILL and run again creates nothing twice and ends as an uninterrupted one', () => {
  const points: [CrashPoint, number][] = [
    ['restore-before-write', 9],
    ['restore-after-write', 14],
    ['restore-mid-batch', 6],
    ['restore-verify', 4],
  ];

  it.each(points)('killed at %s (pass %i)', async (point, pass) => {
    const target = await startShop(TARGET);
    try {
      const state = `state-${point}`;
      const killed = await restore(target, state, { TEST_SHOPSNAP_CRASH_AT: `${point}:${pass}` });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const writes = target.stats().writes;
      expect(writes).toBeGreaterThan(0);
      const rerun = await restore(target, state);
      expect(rerun.code, rerun.stderr).toBe(0);
      const report = JSON.parse(rerun.stdout);
      if (point === 'restore-after-write') {
        // The killed run's last write was applied, its answer never journaled: the rerun found it by its marker.
        const found = Object.values(report.resources).some(
          (r) => (r as { result: { found: number } }).result.found > 0,
        );
        expect(found).toBe(true);
      }
      await expectAsUninterrupted(target, `copy-${point}`);
    } finally {
      await target.close();
    }
  });

  it('a product created before the kill is found by its marker, a metafield the rerun reads, not made again', async () => {
    const target = await startShop(TARGET);
    try {
      const state = 'state-product';
      const killed = await restore(target, state, { TEST_SHOPSNAP_CRASH_AT: 'restore-after-write:2' }, [
        '--resources',
        'products',
      ]);
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(target.count('products')).toBeGreaterThanOrEqual(2);
      const rerun = await restore(target, state);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(JSON.parse(rerun.stdout).resources.products.result.found).toBeGreaterThan(0);
      expect(target.stats().byPath['GET /metafields.json']).toBeGreaterThan(0);
      await expectAsUninterrupted(target, 'copy-product');
    } finally {
      await target.close();
    }
  });

  it.each([['reset'], [502], [504]] as const)(
    'with answers lost (%s) after the shop applied the write, and killed mid-batch as well',
    async (as) => {
      const target = await startShop({ ...TARGET, faults: { lostAnswers: { rate: 0.25, as } } });
      try {
        const state = `state-lost-${as}`;
        const killed = await restore(target, state, { TEST_SHOPSNAP_CRASH_AT: 'restore-mid-batch:12' });
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        const rerun = await restore(target, state);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(target.stats().lostAnswers).toBeGreaterThan(0);
        await expectAsUninterrupted(target, `copy-lost-${as}`);
      } finally {
        await target.close();
      }
    },
  );
});
