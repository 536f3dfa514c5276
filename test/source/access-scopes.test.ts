import { describe, expect, it } from 'vitest';
import { ShopBodyError } from '../../src/source/index.js';
import { readAccessScopes } from '../../src/source/shop-check.js';

describe('readAccessScopes', () => {
  it.each([
    ['{"access_scopes":[{"handle":"read_products"},{"handle":"write_orders"}]}', ['read_products', 'write_orders']],
    ['{"access_scopes":[]}', []],
  ])('reads %s', (body, expected) => {
    expect(readAccessScopes(Buffer.from(body), 'u')).toEqual(expected);
  });

  it.each([['{"access_scopes":[{"name":"x"}]}'], ['{"scopes":[]}'], ['null'], ['{"access_scopes":[nul']])(
    'refuses %s as an unusable body',
    (body) => {
      expect(() => readAccessScopes(Buffer.from(body), 'u')).toThrow(ShopBodyError);
    },
  );
});
