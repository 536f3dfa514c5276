import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import type { FleetSummary } from '../../src/runner/run-job.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { parseManifest } from '../../src/snapshot/manifest.js';
import { runCli } from '../helpers/cli.js';

let work: string;
const shops: RunningShop[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-job-tokens-'));
  for (let i = 0; i < 3; i++) {
    shops.push(
      await startShop({ seed: i, products: 3, customers: 4, orders: 5, token: `shpat_job_token_${i}_canary` }),
    );
  }
});

afterAll(async () => {
  await Promise.all(shops.map((shop) => shop.close()));
  await rm(work, { recursive: true, force: true });
});

describe('a job shop whose token cannot be had', () => {
  it('fails that shop alone, naming what it needs; the others are backed up and the worker exits non-zero', async () => {
    const [unsetEnv, missingFile, healthy] = shops as [RunningShop, RunningShop, RunningShop];
    const missingPath = join(work, 'no-such.token');
    const out = join(work, 'out');
    const job = [
      'name: tokens',
      'shops:',
      `  - shop: "${unsetEnv.url}"`,
      '    token_env: TOKEN_NEVER_SET',
      `  - shop: "${missingFile.url}"`,
      `    token_file: "${missingPath}"`,
      `  - shop: "${healthy.url}"`,
      '    token_env: TOKEN_HEALTHY',
      'formats: [ndjson]',
      `out: "${out}"`,
    ].join('\n');
    await writeFile(join(work, 'job.yaml'), `${job}\n`);

    const result = await runCli(['run', join(work, 'job.yaml')], {
      env: { TOKEN_HEALTHY: healthy.token, SHOPSNAP_TOKEN: 'shpat_not_for_a_job_shop' },
    });

    // The missing token is a setting to fix (exit 2, as for backup), reported after the healthy shop ran.
    expect(result.code, result.stderr).toBe(2);
    const [unsetKey, fileKey, healthyKey] = shops.map((shop) => parseShopAddress(shop.url).key);
    expect(dirname(result.stdout.trim())).toBe(join(out, healthyKey as string));
    const failureLines = result.stderr.split('\n').filter((line) => line.startsWith('shopsnap: '));
    expect(failureLines).toEqual([
      `shopsnap: ${unsetKey} failed: no access token: the variable TOKEN_NEVER_SET (its token_env) is not set`,
      `shopsnap: ${fileKey} failed: cannot read the token file ${missingPath}: no such file or directory (ENOENT)`,
    ]);
    expect(result.stderr).not.toMatch(/SHOPSNAP_TOKEN/);
    const logged = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; shop?: string; err?: { message: string } })
      .filter((line) => line.msg === 'shop failed');
    expect(logged.map((line) => [line.shop, line.err?.message])).toEqual(
      expect.arrayContaining([
        [unsetKey, expect.stringContaining('TOKEN_NEVER_SET')],
        [fileKey, expect.stringContaining(missingPath)],
      ]),
    );

    const summary = JSON.parse(await readFile(join(out, 'fleet-summary.json'), 'utf8')) as FleetSummary;
    expect(summary.shops).toEqual([
      { shop: unsetKey, status: 'failed', error: expect.stringContaining('TOKEN_NEVER_SET') },
      { shop: fileKey, status: 'failed', error: expect.stringContaining(missingPath) },
      { shop: healthyKey, status: 'complete', location: result.stdout.trim() },
    ]);
    const manifestPath = join(result.stdout.trim(), 'manifest.json');
    expect(parseManifest(await readFile(manifestPath, 'utf8'), manifestPath).status).toBe('complete');
    // The shops without a token were never asked anything.
    expect(unsetEnv.stats().requests).toBe(0);
    expect(missingFile.stats().requests).toBe(0);
  });
});
