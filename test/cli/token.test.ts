import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobShopToken } from '../../src/cli/token.js';

let work: string;
let tokenFile: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-token-'));
  tokenFile = join(work, 'shop.token');
  await writeFile(tokenFile, 'shpat_from_file\n');
});

afterAll(() => rm(work, { recursive: true, force: true }));

describe('jobShopToken: a job shop’s token, or what it needs', () => {
  const env = { SHOP_TOKEN: ' shpat_from_env\n', BLANK: '  ' };
  it.each([
    ['its variable', { tokenEnv: 'SHOP_TOKEN' }, undefined, 'shpat_from_env'],
    ['its variable before its file', { tokenEnv: 'SHOP_TOKEN', tokenFile: 'FILE' }, undefined, 'shpat_from_env'],
    ['its file when its variable is unset', { tokenEnv: 'UNSET', tokenFile: 'FILE' }, undefined, 'shpat_from_file'],
    ['its file', { tokenFile: 'FILE' }, undefined, 'shpat_from_file'],
    ['the flags, for a one-shop job that names neither', {}, { token: 'shpat_flag' }, 'shpat_flag'],
    ['its variable over the flags', { tokenEnv: 'SHOP_TOKEN' }, { token: 'shpat_flag' }, 'shpat_from_env'],
  ])('takes %s', async (_, entry, fallback, expected) => {
    const withFile = { ...entry, ...('tokenFile' in entry ? { tokenFile } : {}) };
    expect(await jobShopToken(withFile, fallback, env)).toBe(expected);
  });

  it.each([
    ['an unset variable', { tokenEnv: 'UNSET' }, /^no access token: the variable UNSET \(its token_env\) is not set$/],
    ['a blank variable', { tokenEnv: 'BLANK' }, /the variable BLANK \(its token_env\) is not set$/],
    [
      'an unset variable and a missing file',
      { tokenEnv: 'UNSET', tokenFile: '/nonexistent/shop.token' },
      /UNSET .* is not set, and cannot read the token file \/nonexistent\/shop\.token/,
    ],
    ['a shop of a larger job that names neither', {}, /the job names no token_env or token_file for this shop/],
  ])('names what is missing: %s', async (_, entry, message) => {
    await expect(jobShopToken(entry, undefined, env)).rejects.toThrow(message);
  });
});
