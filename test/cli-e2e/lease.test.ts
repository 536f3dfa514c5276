import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import { LEASE_TTL_MS } from '../../src/snapshot/lease.js';
import { failureLine, lastLine, logLines, runCli, startCli } from '../helpers/cli.js';

const TOKEN = 'shpat_lease_e2e_0c4d9e';

let shop: RunningShop;
let shopKey: string;
let work: string;

beforeAll(async () => {
  // Slow enough that a run is still crawling when the test acts on it.
  shop = await startShop({
    seed: 15,
    orders: 3000,
    customers: 20,
    products: 20,
    token: TOKEN,
    latency: uniformLatency(20, 0.5),
  });
  shopKey = parseShopAddress(shop.url).key;
  work = await mkdtemp(join(tmpdir(), 'shopsnap-lease-e2e-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

const env = { SHOPSNAP_TOKEN: TOKEN };
const backup = (out: string, ...flags: string[]) => ['backup', '--shop', shop.url, '--out', out, ...flags];

/** The lease of a run on another machine, started 10 minutes ago: the test renews it as that run would. */
const FOREIGN_START = Date.now() - 600_000;
async function foreignLease(out: string, renewedMs: number): Promise<{ renewed_at: string; expires_at: string }> {
  const lease = {
    owner: 'a-run-elsewhere',
    host: 'another-machine',
    pid: 4242,
    acquired_at: new Date(FOREIGN_START).toISOString(),
    renewed_at: new Date(renewedMs).toISOString(),
    expires_at: new Date(renewedMs + LEASE_TTL_MS).toISOString(),
  };
  await mkdir(join(out, shopKey), { recursive: true });
  await writeFile(join(out, shopKey, 'lease.json'), JSON.stringify(lease));
  return lease;
}

describe('the lease between runs of one shop (built CLI)', () => {
  it('after kill -9 mid-backup, the next run takes the dead run’s lease over at once and resumes', async () => {
    const out = join(work, 'killed');
    const killed = startCli(backup(out, '--checkpoint-interval', '0.2', '--verbose'), { env });
    await killed.waitForStderr(/committed file/);
    killed.kill('SIGKILL');
    await killed.done;
    const lease = JSON.parse(await readFile(join(out, shopKey, 'lease.json'), 'utf8'));
    expect(lease).toMatchObject({ pid: killed.pid, host: hostname() });

    const startedAt = Date.now();
    const rerun = await runCli(backup(out), { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const messages = logLines(rerun.stderr).map((line) => line.msg);
    expect(messages).toContain(
      `taking over the lease of pid ${killed.pid} on ${hostname()}: that process no longer runs`,
    );
    expect(messages.filter((msg) => msg.startsWith('waiting for the lease'))).toEqual([]);
    // The whole rerun, crawl included, takes less than the lease's TTL it used to wait.
    expect(Date.now() - startedAt).toBeLessThan(LEASE_TTL_MS / 2);
    const manifest = JSON.parse(await readFile(join(lastLine(rerun.stdout), 'manifest.json'), 'utf8'));
    expect(manifest.resumed.attempts).toBe(1);
  });

  it('a second run while one runs on this machine exits 9 at once, naming its pid, start and last renewal', async () => {
    const out = join(work, 'concurrent');
    const first = startCli(backup(out, '--verbose'), { env });
    try {
      await first.waitForStderr(/crawl planned/);
      const held = JSON.parse(await readFile(join(out, shopKey, 'lease.json'), 'utf8'));
      const startedAt = Date.now();
      const second = await runCli(backup(out), { env });
      expect(Date.now() - startedAt).toBeLessThan(LEASE_TTL_MS / 8);
      expect(second.code).toBe(9);
      const match = new RegExp(
        `^shopsnap: another run is backing up ${shopKey} to ${out}: pid ${first.pid} on ${hostname()}, started ` +
          `${held.acquired_at}, lease last renewed (\\S+) \\(it expires (\\S+) unless renewed\\)$`,
      ).exec(failureLine(second.stderr));
      expect(match).not.toBeNull();
      const [renewed, expires] = [Date.parse(match?.[1] ?? ''), Date.parse(match?.[2] ?? '')];
      // The last renewal, not the start: the holder renews while the second run looks.
      expect(renewed).toBeGreaterThanOrEqual(Date.parse(held.renewed_at));
      expect(renewed).toBeLessThanOrEqual(Date.now());
      expect(expires - renewed).toBe(LEASE_TTL_MS);
    } finally {
      first.kill('SIGTERM');
      await first.done;
    }
  });

  it('a run on another machine: the wait is reported with the last renewal and its end, and a renewal ends it with exit 9', async () => {
    const out = join(work, 'elsewhere');
    const held = await foreignLease(out, Date.now() - 30_000);
    const second = startCli(backup(out), { env });
    await second.waitForStderr(/waiting for the lease/);
    const renewed = await foreignLease(out, Date.now());
    const result = await second.done;
    expect(result.code).toBe(9);
    const waiting = logLines(result.stderr).find((line) => line.msg.startsWith('waiting for the lease'));
    expect(waiting).toMatchObject({
      level: 30,
      holder: { host: 'another-machine', pid: 4242 },
      renewed_at: held.renewed_at,
      expires_at: held.expires_at,
    });
    expect(failureLine(result.stderr)).toBe(
      `shopsnap: another run is backing up ${shopKey} to ${out}: pid 4242 on another-machine, started ` +
        `${new Date(FOREIGN_START).toISOString()}, lease last renewed ${renewed.renewed_at} ` +
        `(it expires ${renewed.expires_at} unless renewed)`,
    );
  });

  it('Ctrl-C (SIGINT) ends a wait for the lease at once with exit 130', async () => {
    const out = join(work, 'interrupted');
    await foreignLease(out, Date.now());
    const waiting = startCli(backup(out), { env });
    await waiting.waitForStderr(/waiting for the lease/);
    const interruptedAt = Date.now();
    waiting.kill('SIGINT');
    const result = await waiting.done;
    expect(result.code).toBe(130);
    expect(Date.now() - interruptedAt).toBeLessThan(5_000);
    expect(failureLine(result.stderr)).toBe('shopsnap: interrupted; no snapshot was marked complete');
  });
});
