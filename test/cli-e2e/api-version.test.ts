import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/shopify/resources.js';
import { startShop } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { lastLine, runCli } from '../helpers/cli.js';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-api-version-'));
});

afterAll(() => rm(work, { recursive: true, force: true }));

/** Backs a small shop up with the built CLI; the manifest and the warnings about the answered version. */
async function backUp(answeredApiVersion: string | undefined, out: string) {
  const shop = await startShop({
    seed: 3,
    products: 30,
    customers: 30,
    orders: 30,
    ...(answeredApiVersion === undefined ? {} : { answeredApiVersion }),
  });
  try {
    // Counts and pages of three resources: many answers, each with the header, and still one warning.
    const result = await runCli(['backup', '--shop', shop.url, '--out', out, '--formats', 'ndjson'], {
      env: { SHOPSNAP_TOKEN: shop.token },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(shop.stats().requests).toBeGreaterThan(6);
    const manifest = JSON.parse(await readFile(join(lastLine(result.stdout), 'manifest.json'), 'utf8')) as Manifest;
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; api_version_answered?: string })
      .filter((line) => line.api_version_answered !== undefined);
    return { manifest, warnings };
  } finally {
    await shop.close();
  }
}

describe('the API version that answered (built CLI)', () => {
  it('a shop that falls forward: the manifest records both versions and the run warns once', async () => {
    const { manifest, warnings } = await backUp('2025-01', join(work, 'fall-forward'));
    expect(manifest.api_version).toBe(API_VERSION);
    expect(manifest.api_version_answered).toBe('2025-01');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe(40);
    expect(warnings[0]?.msg).toMatch(/answered with API version 2025-01, not the 2022-01 requested/);
  });

  it('a shop that answers the version asked for: recorded, no warning', async () => {
    const { manifest, warnings } = await backUp(undefined, join(work, 'same'));
    expect(manifest.api_version).toBe(API_VERSION);
    expect(manifest.api_version_answered).toBe(API_VERSION);
    expect(warnings).toEqual([]);
  });
});
