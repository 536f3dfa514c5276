import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../../src/crash-point.js';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import { lastLine, runCli } from '../helpers/cli.js';
import { expectIndexMatchesArchive, filesUnder, manifestsUnder, rawIds } from '../helpers/snapshot-files.js';

const TOKEN = 'shpat_crash_resume_0c4e';
const RESOURCES = ['products', 'customers', 'orders'] as const;

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  // Slow enough pages and a shallow depth that a run passes several checkpoints before it ends.
  shop = await startShop({
    seed: 11,
    products: 300,
    customers: 900,
    orders: 2400,
    token: TOKEN,
    bigIdShare: 0.2,
    latency: uniformLatency(30),
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-crash-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

function backup(out: string, env: Record<string, string> = {}, extra: string[] = []) {
  return runCli(
    ['backup', '--shop', shop.url, '--out', out, '--depth', '2', '--checkpoint-interval', '0.2', '--json', ...extra],
    { env: { SHOPSNAP_TOKEN: TOKEN, ...env } },
  );
}

async function expectExactSnapshot(location: string): Promise<void> {
  const verify = await runCli(['verify', location]);
  expect(verify.stdout + verify.stderr).toContain('OK');
  expect(verify.code).toBe(0);
  for (const resource of RESOURCES) {
    const ids = await rawIds(location, resource);
    expect(new Set(ids).size, `${resource}: no id twice`).toBe(ids.length);
    expect([...ids].sort(), resource).toEqual([...shop.records(resource)].map((r) => String(r.id)).sort());
    // The record index resumes with the archive: one row per line, each at its place, nothing twice.
    await expectIndexMatchesArchive(location, resource);
  }
}

describe('a run killed with SIGKILL resumes into exactly the snapshot an uninterrupted run writes', () => {
  let fullRequests = 0;

  beforeAll(async () => {
    const result = await backup(join(work, 'uninterrupted'));
    expect(result.code, result.stderr).toBe(0);
    const { manifest } = JSON.parse(result.stdout);
    fullRequests = RESOURCES.reduce((sum, r) => sum + manifest.resources[r].requests, 0);
  });

  const points: [CrashPoint, number][] = [
    ['after-page', 6],
    ['mid-file', 3],
    ['before-rename', 4],
    ['mid-upload', 4],
    ['between-uploads', 5],
    ['after-checkpoint', 3],
    ['before-manifest', 1],
    ['after-manifest', 1],
  ];

  it.each(points)(
    'killed at %s (pass %i): no manifest or a correct one, and the rerun completes',
    async (point, pass) => {
      const out = join(work, `${point}-${pass}`);
      const killed = await backup(out, { TEST_SHOPSNAP_CRASH_AT: `${point}:${pass}` });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      if (point === 'mid-upload') {
        // Killed with a part copied to its temp name in the destination, not yet renamed (other copies in flight too).
        expect((await filesUnder(out)).some((file) => file.endsWith('.shopsnap-tmp'))).toBe(true);
      }
      const left = await manifestsUnder(out);
      if (point === 'after-manifest') {
        expect(left).toHaveLength(1);
        await expectExactSnapshot(join(left[0] as string, '..'));
      } else {
        expect(left).toEqual([]);
      }

      const rerun = await backup(out);
      expect(rerun.code, rerun.stderr).toBe(0);
      const { manifest, location } = JSON.parse(rerun.stdout);
      expect(manifest.status).toBe('complete');
      await expectExactSnapshot(location);
      if (manifest.resumed) {
        expect(manifest.resumed.attempts).toBe(1);
        expect(manifest.resumed.earlier_requests).toBeGreaterThan(0);
        // No more than starting over: the crawl cuts its windows by the timing of its answers, so the same crawl may
        // take a partial page more or less from run to run (25 or 26 requests here): a request per resource is allowed.
        expect(manifest.resumed.requests).toBeLessThanOrEqual(fullRequests + RESOURCES.length);
      }
      if (['after-checkpoint', 'before-manifest'].includes(point)) {
        // Progress was checkpointed: the resumed run fetches only what the killed one had not committed.
        expect(manifest.resumed.requests).toBeLessThan(fullRequests);
      }
      if (point === 'before-manifest') {
        // Everything was committed; only the manifest was missing.
        expect(manifest.resumed.requests).toBe(0);
      }
      // One snapshot per shop: the killed run's unfinished one was resumed, not left beside a new one.
      // The rerun swept the temp files of copies the killed run had not finished.
      expect((await filesUnder(out)).filter((file) => file.endsWith('.shopsnap-tmp'))).toEqual([]);
      const snapshots = await readdir(join(out, lastLine(location).split('/').at(-2) as string));
      expect(snapshots.filter((name) => /^\d{8}T/.test(name))).toHaveLength(point === 'after-manifest' ? 2 : 1);
    },
  );

  it('a resumed run removes what the killed one uploaded after its last checkpoint, whatever it writes again', async () => {
    const out = join(work, 'unlisted');
    const killed = await backup(out, { TEST_SHOPSNAP_CRASH_AT: 'after-checkpoint:2' });
    expect(killed.signal).toBe('SIGKILL');
    const [shop] = (await readdir(out)).filter((name) => !name.startsWith('.'));
    const [unfinished] = (await readdir(join(out, shop as string))).filter((name) => /^\d{8}T/.test(name));
    // As a part finished ahead of a checkpoint that never came would be, several parts past the checkpoint's.
    const stray = join(out, shop as string, unfinished as string, 'parquet', 'orders', 'part-00099.parquet');
    await mkdir(join(stray, '..'), { recursive: true });
    await writeFile(stray, 'not listed anywhere');
    const rerun = await backup(out);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { manifest, location } = JSON.parse(rerun.stdout);
    expect(manifest.resumed.attempts).toBe(1);
    expect(existsSync(stray)).toBe(false);
    await expectExactSnapshot(location);
  });

  it('a run asked for --fresh starts over and removes the unfinished snapshot', async () => {
    const out = join(work, 'fresh');
    const killed = await backup(out, { TEST_SHOPSNAP_CRASH_AT: 'after-checkpoint:2' });
    expect(killed.signal).toBe('SIGKILL');
    const rerun = await backup(out, {}, ['--fresh']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { manifest, location } = JSON.parse(rerun.stdout);
    expect(manifest.resumed).toBeUndefined();
    await expectExactSnapshot(location);
    const shopDir = join(location, '..');
    const snapshots = (await readdir(shopDir)).filter((name) => /^\d{8}T/.test(name));
    expect(snapshots).toEqual([manifest.snapshot_id]);
    expect(existsSync(join(shopDir, 'checkpoint.json'))).toBe(false);
    expect(JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8')).status).toBe('complete');
  });
});
