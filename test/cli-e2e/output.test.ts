import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { failureLine, lastLine, runCli, startCli } from '../helpers/cli.js';

const TOKEN = 'shpat_output_e2e_93ad';

let shop: RunningShop;
let work: string;
let snapshot: string;

beforeAll(async () => {
  shop = await startShop({ seed: 5, products: 5, customers: 5, orders: 5, token: TOKEN });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-output-'));
  const backup = await runCli(['backup', '--shop', shop.url, '--out', work, '--formats', 'ndjson'], {
    env: { SHOPSNAP_TOKEN: TOKEN },
  });
  expect(backup.code, backup.stderr).toBe(0);
  snapshot = lastLine(backup.stdout);
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

describe('output contracts (built binary)', () => {
  it.each([
    [['backup', '--shop', '../x', '--json'], {}, 2],
    [['backup', '--colour', 'red'], { SHOPSNAP_JSON: 'true' }, 2],
    [['verify', '--json'], {}, 2],
    [['run', 'missing.yaml', '--json'], {}, 2],
    [['backup', '--shop', 'http://127.0.0.1:9', '--out', '<work>', '--json'], { SHOPSNAP_TOKEN: TOKEN }, 1],
  ] as const)('%j with %j fails as JSON on stdout and one line on stderr', async (args, env, code) => {
    const result = await runCli(
      args.map((arg) => (arg === '<work>' ? work : arg)),
      { env: { ...env } },
    );
    expect(result.code).toBe(code);
    const line = failureLine(result.stderr);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'failed',
      exit_code: code,
      error: line.slice('shopsnap: '.length),
    });
  });

  it('SHOPSNAP_VERBOSE, like --verbose, adds the stack trace before the failure line, which stays last', async () => {
    const result = await runCli(['backup', '--shop', '../x'], {
      env: { SHOPSNAP_VERBOSE: 'true', SHOPSNAP_TOKEN: TOKEN },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ShopAddressError: invalid shop[^\n]*\n\s+at /);
    expect(result.stderr.trimEnd().split('\n').slice(-2)[0]).toBe(failureLine(result.stderr));
  });

  it('without --json a failure prints nothing on stdout', async () => {
    const result = await runCli(['backup', '--shop', '../x', '--no-json'], { env: { SHOPSNAP_JSON: 'true' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['schema', '--json'], 0],
    [['schema'], 0],
    [['--help'], 0],
    [['verify', '--json', '<snapshot>'], 0],
    [['backup', '--shop', '../x', '--json'], 2],
    [['sim', '--json', '--port', '0', '--orders', '2', '--customers', '2', '--products', '2'], 0],
  ])('%j into a closed pipe ends quietly with exit %i', async (args, code) => {
    const result = await startCli(
      args.map((arg) => (arg === '<snapshot>' ? snapshot : arg)),
      { closeStdout: true },
    ).done;
    expect(result.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect([result.code, result.signal]).toEqual([code, null]);
  });

  it('sim --json prints its address and token as one JSON line', async () => {
    const sim = startCli(['sim', '--json', '--port', '0', '--orders', '2', '--customers', '2', '--products', '2']);
    await sim.waitForStderr(/Serving/);
    sim.kill('SIGTERM');
    const result = await sim.done;
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0] as string);
    expect(printed).toEqual({
      shop: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      token: expect.stringMatching(/^shpat_\w+$/),
      api: `${printed.shop}/admin/api/2022-01`,
    });
    const response = await fetch(`${printed.api}/orders/count.json?status=any`, {
      headers: { 'X-Shopify-Access-Token': printed.token },
    }).catch((error: Error) => error);
    expect(response).toBeInstanceOf(Error); // stopped by now; the address was its own
  });
});
