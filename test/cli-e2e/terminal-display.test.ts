import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import { HAS_SCRIPT, runCliInTerminal, startCli } from '../helpers/cli.js';
import { terminalScreen } from '../helpers/terminal-screen.js';

const TOKEN = 'shpat_display_e2e_93ab';
const ROWS = 40;

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  // Slow enough for many redraws, with log lines arriving while the display is up.
  shop = await startShop({
    seed: 31,
    products: 40,
    customers: 300,
    orders: 3_000,
    token: TOKEN,
    latency: uniformLatency(40, 1),
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-display-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

/** A backup in a pseudo-terminal, and every line the terminal showed (scrollback included). */
async function backupInTerminal(columns: number, out: string): Promise<{ code: number | null; screen: string[] }> {
  const { code, output } = await runCliInTerminal(['backup', '--shop', shop.url, '--out', out, '--depth', '3'], {
    columns,
    rows: ROWS,
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  return { code, screen: terminalScreen(output, columns, ROWS) };
}

describe.skipIf(!HAS_SCRIPT)('the live display in a pseudo-terminal (built CLI under util-linux script)', () => {
  it.each([60, 200])(
    'at %i columns: one block, each log line once above it, then the summary with the checks last',
    async (columns) => {
      const { code, screen } = await backupInTerminal(columns, join(work, `display-${columns}`));
      expect(code, screen.join('\n')).toBe(0);
      // Every block drawn was erased by the next: the final one is the only one left, and the bucket shows once.
      expect(screen.filter((line) => line.startsWith('shop: bucket'))).toHaveLength(1);
      for (const resource of ['products', 'customers', 'orders']) {
        expect(screen.filter((line) => line.startsWith(`${resource} `) && line.includes(' done: '))).toHaveLength(1);
        expect(screen.filter((line) => line.includes(`${resource}: finished,`))).toHaveLength(1);
      }
      expect(screen.filter((line) => line.includes('orders: 3,000 records to fetch'))).toHaveLength(1);
      expect(screen.filter((line) => line.includes(' INFO: backing up '))).toHaveLength(1);
      expect(screen.some((line) => / (waiting|ETA) /.test(line))).toBe(false);
      // The block's lines fit the width (log lines may wrap; they are printed once and scroll).
      const block = screen.findIndex((line) => line.startsWith('products   done'));
      for (const line of screen.slice(block, block + 4)) expect(line.length).toBeLessThan(columns);
      const summary = screen.slice(block + 4);
      const files = summary.findIndex((line) => /^table +rows/.test(line));
      const checks = summary.findIndex((line) => /^resource +before +after +exported +check/.test(line));
      expect(files).toBeGreaterThan(0);
      expect(checks).toBeGreaterThan(files);
      expect(summary.slice(files, checks)).toContainEqual(
        expect.stringMatching(/^ {2}order_line_items +[\d,]+ +[\d.]+ [KM]iB/),
      );
      expect(summary.slice(files, checks)).toContainEqual(expect.stringMatching(/^total +[\d,]+ +[\d.]+ [KM]iB/));
      expect(summary[checks + 3]).toMatch(/^orders +3,000 +3,000 +3,000 +ok/);
      // stdout's location comes last (a long path wraps; it is printed, not redrawn).
      const location = summary.findIndex((line) => line.startsWith(`${join(work, `display-${columns}`)}/`));
      expect(location).toBeGreaterThan(checks);
      for (const line of summary.slice(0, location)) expect(line.length).toBeLessThan(columns);
    },
  );

  it('a resource finished by an earlier attempt shows as done by it, not waiting', async () => {
    const out = join(work, 'resumed');
    // Customers finish long before the orders; the run is killed between.
    const killed = startCli(
      ['backup', '--shop', shop.url, '--out', out, '--depth', '3', '--checkpoint-interval', '0.2'],
      {
        env: { SHOPSNAP_TOKEN: TOKEN },
      },
    );
    await killed.waitForStderr(/customers: finished/);
    killed.kill('SIGKILL');
    await killed.done;
    const { code, screen } = await backupInTerminal(200, out);
    expect(code, screen.join('\n')).toBe(0);
    expect(screen).toContain('customers  done by an earlier attempt: 300 records');
    expect(
      screen.filter((line) => / INFO: backing up .*: resuming snapshot \d{8}T\d{9}Z, attempt 2$/.test(line)),
    ).toHaveLength(1);
  });
});
