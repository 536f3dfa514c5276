import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import { lastLine, runCli, startCli } from '../helpers/cli.js';
import { filesUnder } from '../helpers/snapshot-files.js';
import { startStatusShop } from '../helpers/status-shop.js';

const CANARY = 'shpat_CANARY_e2e_7f3a9c1d2b4e';

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  shop = await startShop({ seed: 7, products: 60, customers: 80, orders: 150, token: CANARY, bigIdShare: 0.1 });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-cli-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

async function expectNoCanaryIn(dir: string, outputs: string[]): Promise<void> {
  for (const output of outputs) expect(output).not.toContain(CANARY);
  for (const file of await filesUnder(dir)) {
    expect((await readFile(file)).includes(CANARY), file).toBe(false);
  }
}

describe('shopsnap CLI (built binary, real simulated shop)', () => {
  it('prints help with examples for every command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['check', 'backup', 'run', 'verify', 'snapshots', 'prune', 'schema', 'demo', 'sim'])
      expect(top.stdout).toContain(command);
    const backup = await runCli(['backup', '--help']);
    expect(backup.stdout).toContain('Examples:');
    expect(backup.stdout).toContain('--token-file');
  });

  it('backs up from env, prints the location last, and verify passes; the canary token is nowhere', async () => {
    const out = join(work, 'env-run');
    const backup = await runCli(['backup', '--out', out], { env: { SHOPSNAP_SHOP: shop.url, SHOPSNAP_TOKEN: CANARY } });
    expect(backup.stderr).not.toMatch(/shopsnap: /);
    expect(backup.code).toBe(0);
    const location = lastLine(backup.stdout);
    expect(location.startsWith(join(out, '127.0.0.1-'))).toBe(true);
    const manifest = JSON.parse(await readFile(join(location, 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('complete');
    expect(manifest.resources.orders.exported).toBe(shop.count('orders'));
    const verify = await runCli(['verify', location]);
    expect(verify.code).toBe(0);
    expect(lastLine(verify.stdout)).toBe(`OK ${location}`);
    // Staging is scratch: nothing of it, not even an empty folder, is left beside the snapshots.
    expect(await readdir(out)).toEqual([location.split('/').at(-2)]);
    await expectNoCanaryIn(out, [backup.stdout, backup.stderr, verify.stdout, verify.stderr]);
  });

  it('reads the token from --token-file and prints a JSON summary with --json', async () => {
    const tokenFile = join(work, 'token');
    await writeFile(tokenFile, `${CANARY}\n`);
    const out = join(work, 'json-run');
    const result = await runCli([
      'backup',
      '--shop',
      shop.url,
      '--token-file',
      tokenFile,
      '--out',
      out,
      '--json',
      '--resources',
      'customers',
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(Object.keys(summary.manifest.resources)).toEqual(['customers']);
    await expectNoCanaryIn(out, [result.stdout, result.stderr]);
  });

  it('takes settings from flags over env over the job file', async () => {
    const job = join(work, 'job.yaml');
    await writeFile(
      job,
      `shops: [{shop: "${shop.url}", token_env: SHOP_TOKEN}]\nresources: [products]\nformats: [ndjson]\nout: ${join(work, 'from-file')}\n`,
    );
    const env = { SHOP_TOKEN: CANARY };
    const fromFile = await runCli(['run', job], { env });
    expect(fromFile.code).toBe(0);
    expect(lastLine(fromFile.stdout).startsWith(join(work, 'from-file'))).toBe(true);
    const fromEnv = await runCli(['run', job], { env: { ...env, SHOPSNAP_OUT: join(work, 'from-env') } });
    expect(lastLine(fromEnv.stdout).startsWith(join(work, 'from-env'))).toBe(true);
    const fromFlag = await runCli(['run', job, '--out', join(work, 'from-flag')], {
      env: { ...env, SHOPSNAP_OUT: join(work, 'from-env') },
    });
    expect(lastLine(fromFlag.stdout).startsWith(join(work, 'from-flag'))).toBe(true);
    const manifest = JSON.parse(await readFile(join(lastLine(fromFlag.stdout), 'manifest.json'), 'utf8'));
    // The job's formats, plus the record index every snapshot has.
    expect(new Set(manifest.files.map((file: { format: string }) => file.format))).toEqual(
      new Set(['ndjson', 'index']),
    );
    expect(Object.keys(manifest.resources)).toEqual(['products']);
  });

  it.each([
    [['backup', '--shop', 'x', '--colour', 'red'], {}, 2, /unknown flag --colour/],
    [['backup', '--shop', '../x'], { SHOPSNAP_TOKEN: CANARY }, 2, /invalid shop "\.\.\/x"/],
    [['backup', '--shop', 'x.myshopify.com.evil.io'], { SHOPSNAP_TOKEN: CANARY }, 2, /invalid shop/],
    [['backup', '--shop', 'my-shop'], {}, 2, /no access token/],
    [['backup', '--shop', 'my-shop', '--depth', '0'], {}, 2, /--depth must be a whole number/],
    [['run', 'does-not-exist.yaml'], {}, 2, /cannot read job file does-not-exist\.yaml/],
    [['verify', '/nonexistent/snapshot'], {}, 4, /shopsnap: no snapshot under \/nonexistent\/snapshot$/m],
  ] as const)('%j fails clearly', async (args, env, code, message) => {
    const result = await runCli([...args], { env: { ...env } });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain(CANARY);
  });

  it('names a wrong token (401) and exits 5 without retrying', async () => {
    const result = await runCli(['backup', '--shop', shop.url, '--out', join(work, 'bad-token')], {
      env: { SHOPSNAP_TOKEN: 'shpat_wrong_token_000' },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/401/);
    expect(await filesUnder(join(work, 'bad-token'))).toEqual([]);
  });

  it.each([
    [403, { errors: '[API] This action requires merchant approval for read_orders scope.' }, 5, /403/],
    [402, { errors: 'Unavailable Shop' }, 6, /402/],
    [423, { errors: 'Locked' }, 6, /423/],
  ])('a shop answering %i (%o) exits %i with a one-line message', async (status, body, code, message) => {
    const failing = await startStatusShop(status, body);
    try {
      const result = await runCli(['backup', '--shop', failing.url, '--out', join(work, `status-${status}`)], {
        env: { SHOPSNAP_TOKEN: CANARY },
      });
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(message);
      expect(failing.requests()).toBeLessThan(10);
    } finally {
      await failing.close();
    }
  });

  it('an unreachable shop fails with the address named', async () => {
    const result = await runCli(['backup', '--shop', 'http://127.0.0.1:9', '--out', join(work, 'unreachable')], {
      env: { SHOPSNAP_TOKEN: CANARY },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/127\.0\.0\.1:9/);
  });

  it('an unwritable destination exits 7 and leaves no manifest', async () => {
    const readOnly = join(work, 'read-only');
    await mkdir(readOnly);
    await chmod(readOnly, 0o500);
    const result = await runCli(['backup', '--shop', shop.url, '--out', join(readOnly, 'x')], {
      env: { SHOPSNAP_TOKEN: CANARY },
    });
    await chmod(readOnly, 0o700);
    if (process.getuid?.() === 0) {
      // root writes anywhere; a file in the way of the directory makes the destination unwritable instead
      await writeFile(join(work, 'a-file'), 'x');
      const asRoot = await runCli(['backup', '--shop', shop.url, '--out', join(work, 'a-file', 'x')], {
        env: { SHOPSNAP_TOKEN: CANARY },
      });
      expect(asRoot.code).toBe(7);
      expect(asRoot.stderr).toMatch(/a-file/);
    } else {
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/read-only/);
    }
  });

  it('SIGTERM mid-run exits 130 promptly and leaves no manifest', async () => {
    const slow = await startShop({
      seed: 3,
      orders: 3000,
      customers: 10,
      products: 10,
      token: CANARY,
      rate: 'standard',
    });
    const out = join(work, 'sigterm');
    try {
      const run = startCli(['backup', '--shop', slow.url, '--out', out], {
        env: { SHOPSNAP_TOKEN: CANARY, SHOPSNAP_VERBOSE: 'true' },
      });
      // Mid-run: the crawl has started (a fixed sleep lost the race to the process's start on a loaded machine).
      await run.waitForStderr(/crawl planned/);
      const stoppedAt = Date.now();
      run.kill('SIGTERM');
      const result = await run.done;
      expect(result.code).toBe(130);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect((await filesUnder(out)).filter((file) => file.endsWith('manifest.json'))).toEqual([]);
      expect(result.stderr).not.toContain(CANARY);
    } finally {
      await slow.close();
    }
  });

  it.skipIf(platform() !== 'linux')(
    'converts Parquet in a child process, which does not outlive a killed run',
    async () => {
      const slow = await startShop({
        seed: 4,
        orders: 3000,
        customers: 10,
        products: 10,
        token: CANARY,
        latency: uniformLatency(20, 0.5),
      });
      try {
        const run = startCli(
          ['backup', '--shop', slow.url, '--out', join(work, 'killed'), '--depth', '2', '--checkpoint-interval', '0.2'],
          { env: { SHOPSNAP_TOKEN: CANARY } },
        );
        const converter = await waitFor(async () => (await childrenOf(run.pid as number)).find(isConverter));
        run.kill('SIGKILL');
        await run.done;
        expect(await waitFor(async () => (isAlive(converter.pid) ? undefined : 'gone'))).toBe('gone');
      } finally {
        await slow.close();
      }
    },
  );
});

interface ProcessEntry {
  pid: number;
  args: string;
}

async function childrenOf(pid: number): Promise<ProcessEntry[]> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=,args=', '--ppid', String(pid)]).catch(() => ({
    stdout: '',
  }));
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .flatMap((match) => (match ? [{ pid: Number(match[1]), args: match[2] as string }] : []));
}

function isConverter(entry: ProcessEntry): boolean {
  return entry.args.includes('parquet-child.js');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `probe` until it yields a value, for at most 20 s. */
async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting');
}
