import { describe, expect, it } from 'vitest';
import { parseFields, project } from '../../src/simulator/fields.js';
import type { CustomerFacts } from '../../src/simulator/generate/facts.js';
import { IdSpace } from '../../src/simulator/ids.js';
import { centsOf, money, moneySet } from '../../src/simulator/money.js';
import { decodePageInfo, encodePageInfo } from '../../src/simulator/page-info.js';
import { LeakyBucket, parseRate } from '../../src/simulator/rate-limit.js';
import { exactEmailOf, parseCustomerQuery } from '../../src/simulator/search.js';

describe('page_info tokens', () => {
  it.each([
    [{ filters: {}, lastId: 1997157105766n, lastValue: '2020-01-14 01:49:26', direction: 'next' as const }],
    [{ filters: { status: 'any' }, lastId: 820000000000012345n, lastValue: 'A/B "test"', direction: 'prev' as const }],
    [{ filters: {}, lastId: 6939277263122n, lastValue: 1680227897000, direction: 'next' as const }],
  ])('round-trips token %# as unpadded base64url JSON', (info) => {
    const token = encodePageInfo(info);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageInfo(token)).toEqual(info);
  });

  it('reads a real Shopify token', () => {
    const token =
      'eyJsYXN0X2lkIjoxOTk3MTU3MTA1NzY2LCJsYXN0X3ZhbHVlIjoiMjAyMC0wMS0xNCAwMTo0OToyNiIsImRpcmVjdGlvbiI6Im5leHQifQ';
    expect(decodePageInfo(token)).toEqual({
      filters: {},
      lastId: 1997157105766n,
      lastValue: '2020-01-14 01:49:26',
      direction: 'next',
    });
  });

  it('escapes "/" as Shopify does', () => {
    const token = encodePageInfo({ filters: {}, lastId: 1n, lastValue: 'a/b', direction: 'next' });
    expect(Buffer.from(token, 'base64url').toString()).toContain('"a\\/b"');
  });

  it.each([
    ['padding', 'eyJ9='],
    ['array', Buffer.from('[1]').toString('base64url')],
    ['negative id', Buffer.from('{"last_id":-1,"last_value":"x","direction":"next"}').toString('base64url')],
    [
      'object filter',
      Buffer.from('{"status":{},"last_id":1,"last_value":"x","direction":"next"}').toString('base64url'),
    ],
    ['no last_value', Buffer.from('{"last_id":1,"direction":"next"}').toString('base64url')],
  ])('rejects %s', (_name, token) => {
    expect(decodePageInfo(token)).toBeUndefined();
  });
});

describe('money', () => {
  it.each([
    [19900, '199.00'],
    [5, '0.05'],
    [-1234, '-12.34'],
    [0, '0.00'],
  ])('%i cents → %s', (cents, text) => {
    expect(money(cents)).toBe(text);
  });

  it.each([
    ['129.99', 12999],
    [129.99, 12999],
    [85.95, 8595],
    ['12', 1200],
    ['abc', Number.NaN],
    [null, Number.NaN],
  ])('reads %j as %d cents', (value, cents) => {
    expect(centsOf(value)).toBe(cents);
  });

  it('builds *_set objects', () => {
    expect(moneySet(100, 'EUR')).toEqual({
      shop_money: { amount: '1.00', currency_code: 'EUR' },
      presentment_money: { amount: '1.00', currency_code: 'EUR' },
    });
  });
});

describe('fields', () => {
  it.each([
    ['id,title', ['id', 'title']],
    ['id, email , tags', ['id', 'email', 'tags']],
    [',,', undefined],
    [null, undefined],
  ])('parses %j', (text, fields) => {
    expect(parseFields(text)).toEqual(fields);
  });

  it('projects in the record key order', () => {
    expect(project({ id: 1, title: 't', images: [] }, ['images', 'id'])).toEqual({ id: 1, images: [] });
    expect(Object.keys(project({ id: 1, title: 't', images: [] }, ['images', 'id']))).toEqual(['id', 'images']);
  });
});

describe('ids', () => {
  it('maps indices to increasing ids, big ones above 2^53, and back', () => {
    const space = new IdSpace(1, 3, { normal: 5_000_000_000_000n, big: 820_000_000_000_000_000n }, 0.2);
    let lastNormal = 0n;
    let bigCount = 0;
    for (let index = 0; index < 2000; index++) {
      const id = space.idOf(index);
      expect(space.indexOf(id)).toBe(index);
      if (space.isBig(index)) {
        bigCount++;
        expect(id).toBeGreaterThan(2n ** 53n);
      } else {
        expect(id).toBeGreaterThan(lastNormal);
        lastNormal = id;
      }
    }
    expect(bigCount).toBeGreaterThan(300);
    expect(bigCount).toBeLessThan(500);
    expect(space.indexOf(space.idOf(7) + 1n)).toBe(-1);
    expect(space.indexOf(42n)).toBe(-1);
  });
});

describe('leaky bucket', () => {
  it('adds one per call, leaks with time and refuses the overflowing call', () => {
    let now = 0;
    const bucket = new LeakyBucket({ bucket: 3, leakPerSecond: 2 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take()].map((take) => take.header)).toEqual(['1/3', '2/3', '3/3']);
    expect(bucket.take()).toEqual({ allowed: false, header: '3/3' });
    now = 500;
    expect(bucket.take()).toEqual({ allowed: true, header: '3/3' });
    now = 5000;
    expect(bucket.take()).toEqual({ allowed: true, header: '1/3' });
  });
});

describe('customer search queries', () => {
  const facts: CustomerFacts = {
    index: 0,
    id: 207119551n,
    createdMs: 0,
    updatedMs: 0,
    firstName: 'Bob',
    lastName: 'Norman',
    email: 'bob.norman@mail.example.com',
    phone: '+16136120707',
    state: 'disabled',
    tags: 'New Customer, vip',
    verifiedEmail: true,
    acceptsMarketing: false,
    country: 'United States',
    ordersCount: 1,
  };
  it.each([
    ['email:bob.norman@mail.example.com', true],
    ['email:*@mail.example.com', true],
    ['email:*@example.org', false],
    ['last_name:Norman', true],
    ['first_name:Bob country:United States', true],
    ['first_name:Bob country:Canada', false],
    ['customer_tag:New Customer', true],
    ['tag:vip', true],
    ['verified_email:true', true],
    ['norman', true],
    ['nobody', false],
    ['colour:red', false],
  ])('%s → %s', (query, matches) => {
    expect(parseCustomerQuery(query)(facts)).toBe(matches);
  });

  it.each([
    ['email:bob@example.com', 'bob@example.com'],
    ['email:*@example.com', undefined],
    ['email:a@b.c first_name:x', undefined],
  ])('exact email of %s is %s', (query, email) => {
    expect(exactEmailOf(query)).toBe(email);
  });
});

describe('rate of a simulated shop', () => {
  it.each([
    ['standard', { bucket: 40, leakPerSecond: 2 }],
    ['advanced', { bucket: 80, leakPerSecond: 4 }],
    ['plus', { bucket: 400, leakPerSecond: 20 }],
    ['unlimited', { bucket: 40, leakPerSecond: Number.POSITIVE_INFINITY }],
    ['80@4', { bucket: 80, leakPerSecond: 4 }],
    ['320@16', { bucket: 320, leakPerSecond: 16 }],
    ['40@20', { bucket: 40, leakPerSecond: 20 }],
    ['10@0.5', { bucket: 10, leakPerSecond: 0.5 }],
    ['80x4', undefined],
    ['0@2', undefined],
    ['40@0', undefined],
    ['40@', undefined],
    ['-40@2', undefined],
    ['40.5@2', undefined],
    ['toString', undefined],
    ['', undefined],
  ])('%s', (text, shape) => {
    expect(parseRate(text)).toEqual(shape);
  });
});
