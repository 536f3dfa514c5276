import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import { type CliOptions, failureLine, runCli } from '../helpers/cli.js';
import { cliCopyFor } from '../helpers/cli-copy.js';
import { onFullDisk } from '../helpers/full-disk.js';
import { filesUnder, manifestsUnder } from '../helpers/snapshot-files.js';

const TOKEN = 'shpat_disk_faults_51d0';
/** A failed run must end well within this, whatever failed: nothing is retried in a loop. */
const BOUNDED_MS = 15_000;

let shop: RunningShop;
let work: string;
/** Requests of a run that meets no fault. */
let fullRunRequests: number;

beforeAll(async () => {
  // Slow enough pages that the crawl is still going when the first parts are committed.
  shop = await startShop({
    seed: 5,
    products: 100,
    customers: 300,
    orders: 2000,
    token: TOKEN,
    latency: uniformLatency(50, 1),
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-disk-'));
  // A user without root's privileges must be able to reach the folders below (see `unprivileged`).
  await chmod(work, 0o755);
  // The preload itself changes nothing while there is room: the same run completes.
  const out = join(work, 'roomy');
  const run = await backup(out, onFullDisk(under(out), 1024 ** 3));
  expect(run.code, run.stderr).toBe(0);
  fullRunRequests = run.requests;
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

async function backup(out: string, options: CliOptions = {}) {
  const before = shop.stats().requests;
  const started = Date.now();
  const result = await runCli(
    ['backup', '--shop', shop.url, '--out', out, '--depth', '2', '--checkpoint-interval', '0.2', '--json'],
    { ...options, env: { SHOPSNAP_TOKEN: TOKEN, ...options.env } },
  );
  return { ...result, requests: shop.stats().requests - before, ms: Date.now() - started };
}

/** Absolute paths under `dir`, then matching `rest` (a regexp source). */
function under(dir: string, rest = ''): RegExp {
  return new RegExp(`^${literal(dir)}/${rest}`);
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** No manifest, no temp file, nothing in staging: a failed run leaves only what a resumed run may use. */
async function expectCleanFailure(out: string): Promise<void> {
  const files = await filesUnder(out);
  expect(await manifestsUnder(out)).toEqual([]);
  expect(files.filter((file) => file.endsWith('.shopsnap-tmp') || file.endsWith('.tmp'))).toEqual([]);
  const staging = join(out, '.staging');
  expect(await filesUnder(staging)).toEqual([]);
  // Not even the snapshot's empty staging folders: no late write recreated them after the cleanup.
  for (const shopDir of existsSync(staging) ? await readdir(staging) : []) {
    expect(await readdir(join(staging, shopDir))).toEqual([]);
  }
}

describe('a disk that fills up during a backup', () => {
  it('at the destination: exit 7 naming the file and "no space", no manifest, no temp or staging files', async () => {
    const out = join(work, 'destination-full');
    // Room for the lease, the checkpoint and the first parts: the disk fills while parts are being committed.
    const run = await backup(out, onFullDisk(under(out, '(?!\\.staging/)'), 100_000));
    expect(run.code, run.stderr).toBe(7);
    expect(failureLine(run.stderr)).toMatch(new RegExp(`^shopsnap: cannot write ${literal(out)}/\\S+: no space left`));
    expect((await filesUnder(out)).filter((file) => /\/part-\d+\./.test(file)).length).toBeGreaterThan(0);
    expect(run.requests).toBeGreaterThan(0);
    expect(run.requests).toBeLessThan(fullRunRequests);
    expect(run.ms).toBeLessThan(BOUNDED_MS);
    await expectCleanFailure(out);

    // With space again, the next run resumes from what the full disk had taken, and verify passes.
    const rerun = await backup(out);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { manifest, location } = JSON.parse(rerun.stdout);
    expect(manifest.resumed.attempts).toBe(1);
    expect((await runCli(['verify', location])).code).toBe(0);
  });

  it('in staging: exit 7 naming the staging file and "no space", no manifest, no temp or staging files', async () => {
    const out = join(work, 'staging-full');
    // The part files (DuckDB's Parquet files have a test of their own).
    const run = await backup(out, onFullDisk(under(out, '\\.staging/(?!.*/parquet/)'), 100_000));
    expect(run.code, run.stderr).toBe(7);
    expect(failureLine(run.stderr)).toMatch(
      new RegExp(`^shopsnap: cannot write ${literal(out)}/\\.staging/\\S+\\.gz: no space left`),
    );
    expect(run.requests).toBeLessThan(fullRunRequests);
    expect(run.ms).toBeLessThan(BOUNDED_MS);
    await expectCleanFailure(out);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'in DuckDB\'s Parquet conversion: exit 7 naming the Parquet file and "no space", nothing left behind',
    async () => {
      const out = join(work, 'parquet-full');
      const run = await backup(out, onFullDisk(under(out, '\\.staging/.*/parquet/'), 0));
      expect(run.code, run.stderr).toBe(7);
      expect(failureLine(run.stderr)).toMatch(
        new RegExp(`^shopsnap: cannot write ${literal(out)}/\\.staging/\\S+\\.parquet: no space left`),
      );
      expect(run.ms).toBeLessThan(BOUNDED_MS);
      await expectCleanFailure(out);
    },
  );
});

describe('a destination that cannot be written fails before any crawl request', () => {
  /**
   * Permission faults need a user the kernel holds to them: a root test runner drops to `nobody` for the CLI, which
   * runs from a copy `nobody` can read wherever the checkout lives.
   */
  let unprivileged: CliOptions = {};
  beforeAll(async () => {
    if (process.getuid?.() !== 0) return;
    unprivileged = { user: { uid: 65534, gid: 65534 }, cli: await cliCopyFor(join(work, 'cli')) };
  });

  async function expectRefused(out: string, options: CliOptions, named: string, reason: RegExp): Promise<void> {
    const run = await backup(out, options);
    expect(run.code, run.stderr).toBe(7);
    const failure = failureLine(run.stderr);
    expect(failure).toContain(named);
    expect(failure).toMatch(reason);
    expect(run.requests).toBe(0);
    await expectCleanFailure(out);
  }

  it('a full disk', async () => {
    const out = join(work, 'full-from-start');
    await expectRefused(out, onFullDisk(under(out), 0), `${out}/`, /: no space left on device \(ENOSPC\)$/);
  });

  it('a file where the directory should be', async () => {
    const out = join(work, 'a-file');
    await writeFile(out, 'not a directory');
    await expectRefused(out, {}, out, /: not a directory \(ENOTDIR\)$/);
  });

  it('a read-only directory', async () => {
    const out = join(work, 'read-only');
    await mkdir(out, { mode: 0o555 });
    await expectRefused(out, unprivileged, out, /: permission denied \(EACCES\)$/);
  });

  it('a missing directory whose parent is read-only', async () => {
    const parent = join(work, 'read-only-parent');
    await mkdir(parent, { mode: 0o555 });
    await expectRefused(
      join(parent, 'missing', 'snapshots'),
      unprivileged,
      join(parent, 'missing'),
      /: permission denied \(EACCES\)$/,
    );
  });
});
