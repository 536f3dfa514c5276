import { describe, expect, it } from 'vitest';
import { demoShopKey } from '../../src/cli/commands/demo.js';
import { parseShopAddress } from '../../src/cli/shop-address.js';

describe('the demo shop key', () => {
  it.each([
    [{ orders: 5000, customers: 1500, products: 400 }, 'shopsnap-demo'],
    [{ orders: 300, customers: 1500, products: 400 }, 'shopsnap-demo-o300-c1500-p400'],
    [{ orders: 5000, customers: 60, products: 20 }, 'shopsnap-demo-o5000-c60-p20'],
  ])('%o → %s', (sizes, key) => {
    expect(demoShopKey(sizes)).toBe(key);
  });

  it('is a key no --shop can name: neither a myshopify host nor a loopback address', () => {
    for (const input of ['shopsnap-demo', 'http://127.0.0.1:8080', 'https://shopsnap-demo.myshopify.com']) {
      expect(parseShopAddress(input).key).not.toBe('shopsnap-demo');
    }
  });
});
