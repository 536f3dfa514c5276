import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { loadManifests } from '../deploy/manifests.js';
import { lastLine, runCli, startCli } from '../helpers/cli.js';

const TOKEN = 'shpat_environment_e2e_51c0';

let shop: RunningShop;
let work: string;
let snapshot: string;

/** The SHOPSNAP_* variables of the nightly CronJob's container, as Kubernetes sets them. */
function cronJobVariables(): Record<string, string> {
  const cronJob = loadManifests().find((manifest) => manifest.kind === 'CronJob');
  const container =
    cronJob?.kind === 'CronJob' ? cronJob.object.spec?.jobTemplate.spec?.template.spec?.containers[0] : undefined;
  const variables = (container?.env ?? []).filter((v) => v.name.startsWith('SHOPSNAP_') && v.value !== undefined);
  expect(variables.length).toBeGreaterThanOrEqual(4);
  return Object.fromEntries(variables.map((v) => [v.name, v.value as string]));
}

beforeAll(async () => {
  shop = await startShop({ seed: 11, products: 12, customers: 10, orders: 20, token: TOKEN });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-environment-'));
  const backup = await runCli(['backup', '--out', join(work, 'snapshots')], {
    env: { SHOPSNAP_SHOP: shop.url, SHOPSNAP_TOKEN: TOKEN },
  });
  expect(backup.code, backup.stderr).toBe(0);
  snapshot = lastLine(backup.stdout);
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

describe('SHOPSNAP_* variables (built binary): each command reads its own flags’ variables and no others', () => {
  it.each([
    ['verify with SHOPSNAP_TOKEN', () => ['verify', snapshot], () => ({ SHOPSNAP_TOKEN: TOKEN })],
    ['verify with the nightly CronJob’s variables', () => ['verify', snapshot], cronJobVariables],
    ['schema with a backup’s variables', () => ['schema'], () => ({ SHOPSNAP_TOKEN: TOKEN, SHOPSNAP_SHOP: 'x' })],
  ])('%s runs, silently ignoring them', async (_case, args, env) => {
    const result = await runCli(args(), { env: env() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('run job.yaml with SHOPSNAP_SHOP backs up the job’s shop', async () => {
    const job = join(work, 'job.yaml');
    await writeFile(
      job,
      `shops: [{shop: "${shop.url}", token_env: SHOP_TOKEN}]\nresources: [products]\nout: ${join(work, 'run')}\n`,
    );
    const result = await runCli(['run', job], {
      env: { SHOP_TOKEN: TOKEN, SHOPSNAP_SHOP: 'another-shop', SHOPSNAP_TOKEN: 'shpat_other' },
    });
    expect(result.stderr).not.toMatch(/shopsnap: /);
    expect(result.code).toBe(0);
    expect(lastLine(result.stdout).startsWith(join(work, 'run', '127.0.0.1-'))).toBe(true);
  });

  it('sim does not take SHOPSNAP_TOKEN (a real token it would print) as its own', async () => {
    const sim = startCli(['sim', '--port', '0', '--orders', '3', '--customers', '3', '--products', '3'], {
      env: { SHOPSNAP_TOKEN: TOKEN },
    });
    await sim.waitForStderr(/Serving/);
    sim.kill('SIGTERM');
    const result = await sim.done;
    expect([result.code, result.signal, result.stderr]).toEqual([0, null, expect.anything()]);
    expect(result.stdout).toMatch(/^token: shpat_\w+$/m);
    expect(result.stdout).not.toContain(TOKEN);
  });

  it('backup takes its flags over their variables, and the variables over the defaults', async () => {
    const resources = async (args: string[]) => {
      const result = await runCli(['backup', '--out', join(work, 'precedence'), '--formats', 'ndjson', ...args], {
        env: { SHOPSNAP_SHOP: shop.url, SHOPSNAP_TOKEN: TOKEN, SHOPSNAP_RESOURCES: 'customers' },
      });
      expect(result.code, result.stderr).toBe(0);
      const manifest = JSON.parse(await readFile(join(lastLine(result.stdout), 'manifest.json'), 'utf8'));
      return Object.keys(manifest.resources);
    };
    expect(await resources([])).toEqual(['customers']);
    expect(await resources(['--resources', 'products'])).toEqual(['products']);
  });

  it('a misspelt variable is named in one warning with the nearest known name, and ignored', async () => {
    const result = await runCli(['backup', '--out', join(work, 'misspelt'), '--resources', 'products'], {
      env: { SHOPSNAP_SHOP: shop.url, SHOPSNAP_TOKEN: TOKEN, SHOPSNAP_FORMAT: 'ndjson' },
    });
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('SHOPSNAP_FORMAT'));
    expect(warnings).toEqual([
      'shopsnap: warning: SHOPSNAP_FORMAT is not a shopsnap variable and is ignored; did you mean SHOPSNAP_FORMATS?',
    ]);
    const manifest = JSON.parse(await readFile(join(lastLine(result.stdout), 'manifest.json'), 'utf8'));
    expect(new Set(manifest.files.map((file: { format: string }) => file.format))).toEqual(
      new Set(['parquet', 'ndjson', 'raw', 'index']),
    );
  });
});
