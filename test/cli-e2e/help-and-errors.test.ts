import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { failureLine, lastLine, runCli } from '../helpers/cli.js';

const TOKEN = 'shpat_help_and_errors_e2e_3d1f';

let shop: RunningShop;
let work: string;

beforeAll(async () => {
  shop = await startShop({ seed: 15, products: 8, customers: 6, orders: 10, token: TOKEN });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-help-errors-'));
});

afterAll(async () => {
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

/** A port on 127.0.0.1 that nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('help and error messages (built binary)', () => {
  it('--help and every command’s --help end with every exit code', async () => {
    const top = await runCli(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}shopsnap (\w+)/gm)].map((match) => match[1] as string);
    expect(commands).toEqual(expect.arrayContaining(['check', 'backup', 'run', 'verify', 'restore', 'sim']));
    const helps = [top, ...(await Promise.all(commands.map((command) => runCli([command, '--help']))))];
    for (const [i, help] of helps.entries()) {
      const what = i === 0 ? 'shopsnap --help' : `shopsnap ${commands[i - 1]} --help`;
      expect(help.code, what).toBe(0);
      const table = help.stdout.slice(help.stdout.lastIndexOf('Exit codes:'));
      const codes = [...table.matchAll(/^ {2}(\d+) +\S/gm)].map((match) => Number(match[1]));
      expect(codes, what).toEqual([...new Set(Object.values(EXIT))]);
    }
  });

  it.each([
    ['a misspelt command', 'bakup', 'unknown command "bakup"; did you mean backup?'],
    ['a name every object has', 'constructor', 'unknown command "constructor"'],
  ])('%s is a usage error naming it', async (_case, command, message) => {
    const result = await runCli([command]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`shopsnap: ${message}\nRun shopsnap --help for usage.\n`);
  });

  it('--shop takes the admin’s address as the browser shows it, any page of it', async () => {
    for (const address of [
      'https://admin.shopify.com/store/My-Shop',
      'https://admin.shopify.com/store/my-shop/orders/123',
    ]) {
      const listed = await runCli(['snapshots', work, '--shop', address]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toBe(`no snapshots of my-shop.myshopify.com under ${work}\n`);
    }
    const notAShop = await runCli(['snapshots', work, '--shop', 'https://admin.shopify.com/orders/123']);
    expect(notAShop.code).toBe(EXIT.usage);
    expect(failureLine(notAShop.stderr)).toMatch(
      /not an admin address of a shop \(https:\/\/admin\.shopify\.com\/store\/name\)/,
    );
  });

  it.each([
    [
      'a missing token file',
      () => ['backup', '--shop', shop.url, '--token-file', join(work, 'absent.token')],
      () => `shopsnap: cannot read the token file ${join(work, 'absent.token')}: no such file or directory (ENOENT)`,
    ],
    [
      'a token file that is a folder',
      () => ['backup', '--shop', shop.url, '--token-file', work],
      () => `shopsnap: cannot read the token file ${work}: is a directory (EISDIR)`,
    ],
    [
      'a missing job file',
      () => ['run', join(work, 'absent.yaml')],
      () => `shopsnap: cannot read job file ${join(work, 'absent.yaml')}: no such file or directory (ENOENT)`,
    ],
    [
      'a job file that is a folder',
      () => ['run', work],
      () => `shopsnap: cannot read job file ${work}: is a directory (EISDIR)`,
    ],
  ])('%s is said in words, its code in parentheses', async (_case, args, message) => {
    const result = await runCli(args());
    expect(result.code).toBe(EXIT.usage);
    expect(failureLine(result.stderr)).toBe(message());
  });

  it('a closed port names the URL it gave up on once', async () => {
    const port = await closedPort();
    const result = await runCli(['backup', '--shop', `http://127.0.0.1:${port}`, '--out', join(work, 'closed')], {
      env: { SHOPSNAP_TOKEN: TOKEN },
    });
    expect(result.code).toBe(EXIT.failed);
    const line = failureLine(result.stderr);
    expect(line).toMatch(
      new RegExp(
        `^shopsnap: gave up on http://127\\.0\\.0\\.1:${port}/admin/api/2022-01/\\S+ after \\d+ attempts: connect ECONNREFUSED`,
      ),
    );
    expect(line.split(`http://127.0.0.1:${port}/`)).toHaveLength(2);
  });

  it('a YAML error shows the offending line with a caret under the spot', async () => {
    const job = join(work, 'indented.yaml');
    await writeFile(job, `shops:\n  - shop: ${shop.url}\n    token_env: T\n out: ${work}\n`);
    const result = await runCli(['run', job]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(
      [
        `shopsnap: invalid job file ${job}:`,
        '  - not valid YAML: All mapping items must start at the same column at line 4, column 1:',
        `          token_env: T`,
        `       out: ${work}`,
        '      ^',
      ].join('\n'),
    );
  });

  it('a job file’s formats and resources may be one name or names separated by commas', async () => {
    const out = join(work, 'scalar');
    await mkdir(out);
    const job = join(work, 'scalar.yaml');
    await writeFile(
      job,
      `shops: [{shop: "${shop.url}", token_env: SHOP_TOKEN}]\nresources: products\nformats: ndjson, raw\nout: ${out}\n`,
    );
    const result = await runCli(['run', job], { env: { SHOP_TOKEN: TOKEN } });
    expect(result.code, result.stderr).toBe(EXIT.complete);
    const manifest = JSON.parse(await readFile(join(lastLine(result.stdout), 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.resources)).toEqual(['products']);
    expect(new Set(manifest.files.map((file: { format: string }) => file.format))).toEqual(
      new Set(['ndjson', 'raw', 'index']),
    );
  });
});
