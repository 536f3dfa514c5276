import { describe, expect, it } from 'vitest';
import { ForeignLinkError, LinkHeaderError } from '../../src/source/errors.js';
import { parseNextLink } from '../../src/source/link-header.js';

const requested = new URL('https://shop.myshopify.com/admin/api/2022-01/orders.json?status=any&limit=250');
const base = 'https://shop.myshopify.com/admin/api/2022-01/orders.json';

describe('parseNextLink', () => {
  it.each([
    ['no header', undefined, undefined],
    ['empty header', '', undefined],
    ['previous only', `<${base}?limit=250&page_info=p1>; rel="previous"`, undefined],
    ['next only', `<${base}?limit=250&page_info=n1>; rel="next"`, { pageInfo: 'n1', limit: '250' }],
    [
      'previous and next',
      `<${base}?limit=3&page_info=p1>; rel="previous", <${base}?limit=3&page_info=n1>; rel="next"`,
      { pageInfo: 'n1', limit: '3' },
    ],
    ['page_info before limit', `<${base}?page_info=n1&limit=3>; rel="next"`, { pageInfo: 'n1', limit: '3' }],
    [
      'fields echoed, URL-encoded',
      `<${base}?limit=1&fields=id%2Cemail&page_info=n1>; rel="next"`,
      { pageInfo: 'n1', limit: '1', fields: 'id,email' },
    ],
    ['other parameters are ignored', `<${base}?page_info=n1&status=open>; rel="next"`, { pageInfo: 'n1' }],
    ['extra spaces', `  <${base}?page_info=n1> ;  rel="next"  `, { pageInfo: 'n1' }],
  ])('%s', (_name, header, expected) => {
    expect(parseNextLink(header, requested)).toEqual(expected);
  });

  it.each([
    ['garbage', 'invalid link'],
    ['unquoted rel', `<${base}?page_info=n1>; rel=next`],
    ['relative URL', '</admin/api/2022-01/orders.json?page_info=n1>; rel="next"'],
    ['broken URL', '<:invalid.url>; rel="next"'],
    ['no page_info', `<${base}?limit=250>; rel="next"`],
    ['limit not a number', `<${base}?limit=abc&page_info=n1>; rel="next"`],
    ['two next links', `<${base}?page_info=n1>; rel="next", <${base}?page_info=n2>; rel="next"`],
    ['missing angle brackets', `${base}?page_info=n1; rel="next"`],
  ])('rejects %s as malformed', (_name, header) => {
    expect(() => parseNextLink(header, requested)).toThrow(LinkHeaderError);
  });

  it.each([
    ['another host', '<https://evil.example/admin/api/2022-01/orders.json?page_info=n1>; rel="next"'],
    ['another scheme', '<http://shop.myshopify.com/admin/api/2022-01/orders.json?page_info=n1>; rel="next"'],
    ['another port', '<https://shop.myshopify.com:8443/admin/api/2022-01/orders.json?page_info=n1>; rel="next"'],
    ['another path', '<https://shop.myshopify.com/admin/api/2022-01/customers.json?page_info=n1>; rel="next"'],
    [
      'userinfo trick',
      '<https://shop.myshopify.com@evil.example/admin/api/2022-01/orders.json?page_info=n>; rel="next"',
    ],
  ])('refuses a link to %s', (_name, header) => {
    expect(() => parseNextLink(header, requested)).toThrow(ForeignLinkError);
  });
});
