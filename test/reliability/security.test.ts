import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import {
  type FaultOptions,
  type RunningShop,
  type ShopOptions,
  startShop,
  uniformLatency,
} from '../../src/simulator/index.js';
import { type CliResult, failureLine, lastLine, runCli } from '../helpers/cli.js';
import { BUCKET, s3rverCliFlags } from '../helpers/s3-fixture.js';
import { type S3rverProcess, startS3rver } from '../helpers/s3rver-process.js';
import { startSchemeDemux } from '../helpers/scheme-demux.js';
import { filesUnder, manifestsUnder } from '../helpers/snapshot-files.js';
import { LOOPBACK_CERT_PATH, LOOPBACK_TLS } from '../helpers/tls-fixture.js';
import { json, tinyServer } from '../source/tiny-server.js';

// Canaries: unique strings that must never be printed or written. The AWS pair really signs requests (s3rver is told
// to accept it); UNKNOWN_KEY_ID is one s3rver refuses, so its error passes through the CLI too.
const TOKEN = 'shpat_CANARY_tok_9b4e1d7a2c';
const AWS_KEY = { accessKeyId: 'AKIACANARYKEYID7Q3XZ', secretAccessKey: 'CANARYsecret9f2eKq7Vb1Lr5Wm3Xy8Zt0Ab' };
const UNKNOWN_KEY_ID = 'AKIACANARYUNKNOWN4D2';
const CANARIES = [TOKEN, AWS_KEY.accessKeyId, AWS_KEY.secretAccessKey, UNKNOWN_KEY_ID];

type Trap = Awaited<ReturnType<typeof tinyServer>>;

let work: string;
let trap: Trap;
let s3: S3rverProcess;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-security-'));
  // Answers like a shop would, so a client that reached it would carry on and leak its token.
  trap = await tinyServer((_request, response) => json(response, 200, '{"orders":[],"products":[],"customers":[]}'));
  s3 = await startS3rver([BUCKET], AWS_KEY);
});

afterAll(async () => {
  await Promise.all([trap.close(), s3.stop()]);
  await rm(work, { recursive: true, force: true });
});

async function shopWith(options: ShopOptions): Promise<RunningShop> {
  return startShop({ seed: 31, products: 300, customers: 300, orders: 600, token: TOKEN, ...options });
}

interface Run {
  result: CliResult;
  /** Everything the run may have written: its destination, its temp dir (staging of S3 runs), s3rver's files. */
  trees: string[];
  out: string;
}

/**
 * `shopsnap backup` (the built binary) with the canary token and canary AWS keys in its environment, verbose logs on,
 * and a temp dir of its own, so every file it writes is somewhere we grep.
 */
async function backup(
  name: string,
  shopUrl: string,
  options: { s3?: boolean; env?: Record<string, string>; args?: string[] } = {},
) {
  const dir = join(work, name);
  const temp = join(dir, 'tmp');
  await mkdir(temp, { recursive: true });
  const out = options.s3 ? `s3://${BUCKET}/${name}` : join(dir, 'out');
  const args = ['backup', '--shop', shopUrl, '--out', out, '--formats', 'raw,ndjson', '--checkpoint-interval', '0.1'];
  const result = await runCli([...args, ...(options.s3 ? s3rverCliFlags(s3.endpoint) : []), ...(options.args ?? [])], {
    env: {
      SHOPSNAP_TOKEN: TOKEN,
      SHOPSNAP_VERBOSE: 'true',
      AWS_ACCESS_KEY_ID: AWS_KEY.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS_KEY.secretAccessKey,
      AWS_REGION: 'us-east-1',
      TMPDIR: temp,
      ...options.env,
    },
  });
  return { result, trees: options.s3 ? [dir, s3.directory] : [dir], out } satisfies Run;
}

async function expectNoCanary(run: Run): Promise<void> {
  for (const canary of CANARIES) {
    expect(run.result.stdout, 'stdout').not.toContain(canary);
    expect(run.result.stderr, 'stderr').not.toContain(canary);
  }
  const files = (await Promise.all(run.trees.map(filesUnder))).flat();
  for (const file of files) {
    // The S3 tests share one s3rver folder and run concurrently: another run's lease can go between list and read.
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    for (const canary of CANARIES) expect(bytes.includes(canary), `${canary} in ${file}`).toBe(false);
  }
}

/** A failed run: its code, its one `shopsnap: …` line, no stack, no manifest, no canary anywhere. */
async function expectFailure(run: Run, code: number, message: RegExp): Promise<void> {
  const { result } = run;
  expect(result.code, result.stderr).toBe(code);
  failureLine(result.stderr);
  expect(lastLine(result.stderr)).toMatch(message);
  if (!run.out.startsWith('s3://')) expect(await manifestsUnder(run.out)).toEqual([]);
  await expectNoCanary(run);
}

const port = (url: string) => new URL(url).port;

describe.concurrent('requests go only to the configured shop origin', { timeout: 60_000 }, () => {
  it.each([
    ['a Link pointing at another host', false],
    ['a Link pointing at another host on a shop whose Link chain is followed (it ignores filters)', true],
  ])('refuses %s, which sees no request', async (name, ignoreFilters) => {
    const shop = await shopWith({ faults: { ignoreFilters, linkOrigin: trap.url } });
    try {
      const run = await backup(name.replace(/\W+/g, '-'), shop.url);
      expect(trap.requests).toEqual([]);
      await expectFailure(
        run,
        EXIT.failed,
        new RegExp(
          `^shopsnap: refusing Link to http://127\\.0\\.0\\.1:${port(trap.url)}/admin/api/2022-01/\\w+\\.json\\?limit=\\d+&page_info=\\S+: only http://127\\.0\\.0\\.1:${port(shop.url)}/admin/api/2022-01/\\w+\\.json may be followed$`,
        ),
      );
      expect(shop.stats().faults.linkOrigin).toBeGreaterThan(0);
    } finally {
      await shop.close();
    }
  });

  it.each([301, 302, 307, 308] as const)(
    'refuses a %i redirect to another host, which sees no request',
    async (status) => {
      const shop = await shopWith({ faults: { failFromRequest: { after: 4, status, location: trap.url } } });
      try {
        const run = await backup(`redirect-${status}`, shop.url);
        expect(trap.requests).toEqual([]);
        await expectFailure(
          run,
          EXIT.failed,
          new RegExp(
            `^shopsnap: refusing to follow a redirect \\(${status}\\) from http://127\\.0\\.0\\.1:${port(shop.url)}/admin/api/2022-01/\\S+ to http://127\\.0\\.0\\.1:${port(trap.url)}/admin/api/2022-01/\\S+: requests go only to the shop's own address$`,
          ),
        );
        expect(shop.stats().faults.failFromRequest).toBeGreaterThan(0);
      } finally {
        await shop.close();
      }
    },
  );
});

describe.concurrent('an https shop is never spoken to in plain http', { timeout: 60_000 }, () => {
  /**
   * An https shop reached through a port that hands plain-HTTP connections to a trap of its own: `http://` on the
   * shop's very host and port reaches that trap, so the trap counts every downgraded request.
   */
  async function httpsShopWithTrap(faults: (origin: string) => FaultOptions) {
    const plainTrap = await tinyServer((_request, response) => json(response, 200, '{"orders":[]}'));
    const shop = await shopWith({ tls: LOOPBACK_TLS });
    const demux = await startSchemeDemux(Number(port(shop.url)), Number(port(plainTrap.url)));
    shop.setFaults(faults(`127.0.0.1:${demux.port}`));
    return {
      shop,
      plainTrap,
      url: `https://127.0.0.1:${demux.port}`,
      close: () => Promise.all([demux.close(), shop.close(), plainTrap.close()]),
    };
  }

  const TRUST = { NODE_EXTRA_CA_CERTS: LOOPBACK_CERT_PATH };

  it('backs up over TLS exactly while a plain-http trap shares the host and port (the control)', async () => {
    const setup = await httpsShopWithTrap(() => ({}));
    try {
      const run = await backup('https-control', setup.url, { env: TRUST });
      expect(run.result.code, run.result.stderr).toBe(EXIT.complete);
      const manifest = JSON.parse(await readFile(join(lastLine(run.result.stdout), 'manifest.json'), 'utf8'));
      expect(manifest.resources.orders.exported).toBe(setup.shop.count('orders'));
      expect(setup.shop.stats().requests).toBeGreaterThan(0);
      expect(setup.plainTrap.requests).toEqual([]);
      await expectNoCanary(run);
    } finally {
      await setup.close();
    }
  });

  it.each([
    ['a Link downgrading to http:// on the same host and port', (host: string) => ({ linkOrigin: `http://${host}` })],
    [
      'a Link chain (a shop ignoring filters) downgrading to http://',
      (host: string) => ({ ignoreFilters: true, linkOrigin: `http://${host}` }),
    ],
    [
      'a 301 redirect to http:// on the same host and port',
      (host: string) => ({ failFromRequest: { after: 4, status: 301 as const, location: `http://${host}` } }),
    ],
  ])('refuses %s: no request in plain http', async (name, faults) => {
    const setup = await httpsShopWithTrap(faults);
    try {
      const run = await backup(name.replace(/\W+/g, '-'), setup.url, { env: TRUST });
      expect(setup.plainTrap.requests).toEqual([]);
      await expectFailure(
        run,
        EXIT.failed,
        /^shopsnap: (refusing Link to http:\/\/127\.0\.0\.1:\d+\/\S+: only https:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/\w+\.json may be followed|refusing to follow a redirect \(301\) from https:\/\/\S+ to http:\/\/127\.0\.0\.1:\d+\/\S+: requests go only to the shop's own address)$/,
      );
    } finally {
      await setup.close();
    }
  });
});

describe.concurrent('canary credentials appear in no output and no file', { timeout: 60_000 }, () => {
  it('a successful backup to S3, signed with the canary AWS keys, and its verify', async () => {
    const shop = await shopWith({});
    try {
      const run = await backup('s3-success', shop.url, { s3: true });
      expect(run.result.code, run.result.stderr).toBe(EXIT.complete);
      const location = lastLine(run.result.stdout);
      expect(location).toMatch(new RegExp(`^s3://${BUCKET}/s3-success/`));
      await expectNoCanary(run);
      const verify = await runCli(['verify', location, ...s3rverCliFlags(s3.endpoint), '--verbose'], {
        env: {
          AWS_ACCESS_KEY_ID: AWS_KEY.accessKeyId,
          AWS_SECRET_ACCESS_KEY: AWS_KEY.secretAccessKey,
          AWS_REGION: 'us-east-1',
        },
      });
      expect(verify.code, verify.stderr).toBe(0);
      await expectNoCanary({ ...run, result: verify });
    } finally {
      await shop.close();
    }
  });

  it('a backup to S3 failing mid-run as the shop freezes (402), after parts were uploaded', async () => {
    // Two requests in flight and slow pages keep the crawl going for seconds; the shop freezes once a part is in S3.
    const shop = await shopWith({ orders: 5000, latency: uniformLatency(150) });
    try {
      const running = backup('s3-frozen', shop.url, { s3: true, args: ['--depth', '2'] });
      const uploaded = async () =>
        (await filesUnder(join(s3.directory, BUCKET))).filter((path) => path.includes('/s3-frozen/'));
      let settled = false;
      void running.finally(() => {
        settled = true;
      });
      while (!settled && !(await uploaded()).some((path) => path.includes('/raw/'))) await sleep(25);
      shop.setFaults({ failFromRequest: { after: 0, status: 402 } });
      const run = await running;
      await expectFailure(run, EXIT.shopUnavailable, /^shopsnap: the shop is frozen \(402 Payment Required\)/);
      expect((await uploaded()).filter((path) => path.includes('/raw/')).length).toBeGreaterThan(0);
      expect((await uploaded()).some((path) => path.includes('manifest.json'))).toBe(false);
    } finally {
      await shop.close();
    }
  });

  it('a backup to S3 that refuses an unknown canary access key', async () => {
    const shop = await shopWith({});
    try {
      const run = await backup('s3-refused', shop.url, { s3: true, env: { AWS_ACCESS_KEY_ID: UNKNOWN_KEY_ID } });
      await expectFailure(
        run,
        EXIT.destination,
        /^shopsnap: cannot check s3:\/\/shopsnap-test\/s3-refused\/\S+: \w+ \(HTTP 403\); check the credentials/,
      );
    } finally {
      await shop.close();
    }
  });

  it('a backup whose shop rejects the canary token (401)', async () => {
    const shop = await startShop({ seed: 31, products: 5, customers: 5, orders: 5 });
    try {
      const run = await backup('token-refused', shop.url);
      await expectFailure(run, EXIT.auth, /^shopsnap: the shop rejected the access token \(401 Unauthorized\)/);
    } finally {
      await shop.close();
    }
  });
});
