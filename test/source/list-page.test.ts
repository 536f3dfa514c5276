import { describe, expect, it } from 'vitest';
import { ShopBodyError, ShopBodyTooDeepError } from '../../src/source/errors.js';
import { MAX_JSON_DEPTH, readCount, scanListPage } from '../../src/source/list-page.js';

describe('scanListPage', () => {
  it('slices each record exactly, with its exact id and timestamps, and parses it losslessly on demand', () => {
    const text =
      '{"orders":[{"id":9007199254740993,"created_at":"2020-01-01T00:00:00-05:00","line_items":[{"id":1,' +
      '"updated_at":"nested"}],"note":"a \\"quoted\\" ] } [ {"} , { "id" : 5 , "note":"\\\\", "updated_at" : "2021-02-03T04:05:06Z"}]}';
    const records = scanListPage(Buffer.from(text), 'orders', 'u');
    expect(records.map((r) => [r.id, r.createdAt, r.updatedAt])).toEqual([
      ['9007199254740993', '2020-01-01T00:00:00-05:00', undefined],
      ['5', undefined, '2021-02-03T04:05:06Z'],
    ]);
    expect(records[0]?.bytes.toString()).toBe(
      '{"id":9007199254740993,"created_at":"2020-01-01T00:00:00-05:00","line_items":[{"id":1,"updated_at":"nested"}],' +
        '"note":"a \\"quoted\\" ] } [ {"}',
    );
    expect(records[0]?.record.id).toBe(9007199254740993n);
    expect(records[1]?.record).toEqual({ id: 5, note: '\\', updated_at: '2021-02-03T04:05:06Z' });
  });

  it('decodes each record on its own, multi-byte UTF-8 included', () => {
    const first = '{"id":1,"note":"Zoë — 限定 😀","ünï":"x"}';
    const second = '{"id":2,"note":"\\u00e9 stays escaped"}';
    const records = scanListPage(Buffer.from(`{"orders":[${first},${second}]}`), 'orders', 'u');
    expect(records.map((r) => r.bytes.toString())).toEqual([first, second]);
    expect(records[0]?.record).toEqual({ id: 1, note: 'Zoë — 限定 😀', ünï: 'x' });
  });

  it.each([
    ['a big id', '{"id":9007199254740993}', { id: 9007199254740993n }],
    [
      'a big id nested deep',
      '{"id":1,"a":[{"b":[-12345678901234567890]}]}',
      { id: 1, a: [{ b: [-12345678901234567890n] }] },
    ],
    ['long digits only inside a string', '{"id":1,"s":"12345678901234567890"}', { id: 1, s: '12345678901234567890' }],
    ['a long fraction', '{"id":1,"x":1.12345678901234567890}', { id: 1, x: 1.1234567890123457 }],
    ['15 digits', '{"id":123456789012345}', { id: 123456789012345 }],
    ['an escaped backslash then an escaped quote', '{"id":1,"s":"a\\\\\\"}","t":"]"}', { id: 1, s: 'a\\"}', t: ']' }],
    [
      'two escaped backslashes before the closing quote',
      '{"id":1,"s":"\\\\\\\\","t":"}"}',
      { id: 1, s: '\\\\', t: '}' },
    ],
  ])('parses a record with %s exactly', (_name, record, expected) => {
    const [scanned] = scanListPage(Buffer.from(`{"orders":[${record}]}`), 'orders', 'u');
    expect(scanned?.record).toEqual(expected);
  });

  it.each([
    ['an empty list', '{"customers":[]}', 0],
    ['a nested id only', '{"customers":[{"id":7,"addresses":[{"id":8}]}]}', 1],
  ])('reads %s', (_name, text, count) => {
    expect(scanListPage(Buffer.from(text), 'customers', 'u')).toHaveLength(count);
  });

  it.each([
    ['a truncated body', '{"orders":[{"id":1},{"id":2,"note":"ab'],
    ['a body cut after an escaped quote', '{"orders":[{"id":1,"note":"ab\\"'],
    ['a body cut between records', '{"orders":[{"id":1},'],
    ['another envelope', '{"products":[{"id":1}]}'],
    ['a record without id', '{"orders":[{"name":"x"}]}'],
    ['a string id', '{"orders":[{"id":"1"}]}'],
    ['a list of numbers', '{"orders":[1,2]}'],
    ['an HTML page', '<html>oops</html>'],
  ])('rejects %s as an unusable body', (_name, text) => {
    expect(() => scanListPage(Buffer.from(text), 'orders', 'u')).toThrow(ShopBodyError);
  });
});

describe('scanListPage nesting', () => {
  /** A page whose one record nests arrays so that the page reaches `depth` levels in all. */
  const pageOfDepth = (depth: number) =>
    `{"orders":[{"id":1,"x":${'['.repeat(depth - 3)}"[{ in a string do not count"${']'.repeat(depth - 3)}}]}`;

  it.each([
    [MAX_JSON_DEPTH, 'reads', 1],
    [MAX_JSON_DEPTH + 1, 'refuses', ShopBodyTooDeepError],
    [100_000, 'refuses', ShopBodyTooDeepError],
  ])('%i levels: %s', (depth, _verb, outcome) => {
    const scan = () => scanListPage(Buffer.from(pageOfDepth(depth)), 'orders', 'u');
    if (typeof outcome === 'number') expect(scan()).toHaveLength(outcome);
    else expect(scan).toThrow(outcome);
  });
});

describe('readCount', () => {
  it.each([
    ['{"count":12}', 12],
    ['{"count":0}', 0],
  ])('%s', (text, expected) => {
    expect(readCount(Buffer.from(text), 'u')).toBe(expected);
  });

  it.each(['{"count":-1}', '{"count":"3"}', '{"count":1', '{}'])('rejects %s', (text) => {
    expect(() => readCount(Buffer.from(text), 'u')).toThrow(ShopBodyError);
  });
});
