import { describe, expect, it } from 'vitest';
import { ShopBodyError } from '../../src/source/errors.js';
import { readSingleRecord } from '../../src/source/single-record.js';

const URL = 'http://127.0.0.1:1/admin/api/2022-01/orders/1.json';

describe('readSingleRecord', () => {
  it.each([
    [
      'compact',
      '{"order":{"id":1,"updated_at":"2026-01-01T00:00:00-05:00"}}',
      '{"id":1,"updated_at":"2026-01-01T00:00:00-05:00"}',
    ],
    ['with whitespace around', ' {\n  "order" : {"id":1, "a":"}"}\n}\n', '{"id":1, "a":"}"}'],
    [
      'an id above 2^53, exactly',
      '{"order":{"id":9007199254740993,"b":[{"c":{}}]}}',
      '{"id":9007199254740993,"b":[{"c":{}}]}',
    ],
  ])('cuts out the record %s, byte for byte', (_name, body, record) => {
    const id = /"id":(\d+)/.exec(body)?.[1] as string;
    const read = readSingleRecord(Buffer.from(body), 'order', id, URL);
    expect(read.bytes.toString('utf8')).toBe(record);
  });

  it('reads updated_at as served', () => {
    const read = readSingleRecord(
      Buffer.from('{"order":{"id":1,"updated_at":"2026-01-01T00:00:00-05:00"}}'),
      'order',
      '1',
      URL,
    );
    expect(read.updatedAt).toBe('2026-01-01T00:00:00-05:00');
  });

  it.each([
    ['another key', '{"product":{"id":1}}', /expected \{"order":\{…\}\}/],
    ['a second key', '{"order":{"id":1},"extra":1}', /expected \{"order":\{…\}\}/],
    ['a list', '{"order":[{"id":1}]}', /expected \{"order":\{…\}\}/],
    ['another record', '{"order":{"id":2}}', /the record served has id 2, not 1/],
    [
      'an id one past 2^53 read through a float',
      '{"order":{"id":9007199254740992}}',
      /has id 9007199254740992, not 9007199254740993/,
    ],
    ['a truncated body', '{"order":{"id":1', /invalid JSON/],
  ])('refuses %s', (_name, body, message) => {
    const id = _name.includes('2^53') ? '9007199254740993' : '1';
    expect(() => readSingleRecord(Buffer.from(body), 'order', id, URL)).toThrow(ShopBodyError);
    expect(() => readSingleRecord(Buffer.from(body), 'order', id, URL)).toThrow(message);
  });
});
