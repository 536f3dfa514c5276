import { describe, expect, it } from 'vitest';
import { parseShopAddress, ShopAddressError } from '../../src/cli/shop-address.js';

describe('parseShopAddress', () => {
  it.each([
    ['my-shop', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['My-Shop', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['my-shop.myshopify.com', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['https://my-shop.myshopify.com', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['https://my-shop.myshopify.com/', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['https://admin.shopify.com/store/my-shop', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['https://admin.shopify.com/store/my-shop/', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['https://admin.shopify.com/store/My-Shop/orders/123', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    [
      'https://admin.shopify.com/store/my-shop/orders?status=open#x',
      'https://my-shop.myshopify.com',
      'my-shop.myshopify.com',
    ],
    ['admin.shopify.com/store/my-shop/products', 'https://my-shop.myshopify.com', 'my-shop.myshopify.com'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080', '127.0.0.1-8080'],
    ['http://localhost:3000', 'http://localhost:3000', 'localhost-3000'],
    ['http://[::1]:3000', 'http://[::1]:3000', 'ipv6-loopback-3000'],
  ])('accepts %s', (input, origin, key) => {
    expect(parseShopAddress(input)).toEqual({ origin, key });
  });

  it.each([
    ['../x'],
    ['a/b'],
    ['a%2fb'],
    ['shop\u0000'],
    ['ｓｈｏｐ'],
    ['x.myshopify.com.evil.io'],
    ['https://x.myshopify.com.evil.io'],
    ['http://my-shop.myshopify.com'],
    ['https://my-shop.myshopify.com/admin'],
    ['https://my-shop.myshopify.com?x=1'],
    ['https://user:pass@my-shop.myshopify.com'],
    ['https://my-shop.myshopify.com:8443'],
    ['http://10.0.0.1:80'],
    ['http://example.com'],
    ['-shop'],
    [''],
    ['file:///etc/passwd'],
    ['https://admin.shopify.com'],
    ['https://admin.shopify.com/store'],
    ['https://admin.shopify.com/store/'],
    ['https://admin.shopify.com/orders/123'],
    ['https://admin.shopify.com/store/my%2Fshop'],
    ['https://admin.shopify.com/store/../x.myshopify.com.evil.io'],
    ['https://admin.shopify.com/store/-shop'],
    ['http://admin.shopify.com/store/my-shop'],
    ['https://admin.shopify.com:8443/store/my-shop'],
    ['https://user:pass@admin.shopify.com/store/my-shop'],
    ['https://admin.shopify.com.evil.io/store/my-shop'],
  ])('rejects %j before any I/O', (input) => {
    expect(() => parseShopAddress(input)).toThrow(ShopAddressError);
  });
});
