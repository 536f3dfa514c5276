import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/shopify/json.js';
import { isDecimal, isTimestamp, jsonText, toCell } from '../../src/transform/cells.js';
import type { ColumnType } from '../../src/transform/schema.js';

describe('toCell', () => {
  it.each<[string, ColumnType, JsonValue, unknown]>([
    ['null in any column', 'int64', null, null],
    ['safe id', 'int64', 450789469, 450789469],
    ['2^53+1 as bigint', 'int64', 9007199254740993n, 9007199254740993n],
    ['int64 max', 'int64', 9223372036854775807n, 9223372036854775807n],
    ['int64 min', 'int64', -9223372036854775808n, -9223372036854775808n],
    ['beyond int64 max', 'int64', 9223372036854775808n, undefined],
    ['digit string, safe', 'int64', '450789469', 450789469],
    ['digit string beyond 2^53', 'int64', '9007199254740993', 9007199254740993n],
    ['digit string beyond int64', 'int64', '18446744073709551615', undefined],
    ['digit string with leading zero', 'int64', '007', undefined],
    ['a rounded number beyond 2^53', 'int64', 2 ** 60, undefined],
    ['fraction as int64', 'int64', 1.5, undefined],
    ['boolean as int64', 'int64', true, undefined],
    ['int32', 'int32', -2147483648, -2147483648],
    ['int32 overflow', 'int32', 2147483648, undefined],
    ['int32 from string', 'int32', '5', undefined],
    ['boolean', 'boolean', false, false],
    ['boolean from string', 'boolean', 'true', undefined],
    ['money string', 'decimal', '0.29', '0.29'],
    ['negative money', 'decimal', '-4.35', '-4.35'],
    ['money as JSON number', 'decimal', 195.66, '195.66'],
    ['money with five decimals', 'decimal', '1.23456', undefined],
    ['money as float noise', 'decimal', 0.1 + 0.2, undefined],
    ['money in exponent form', 'decimal', '1e3', undefined],
    ['money as object', 'decimal', { amount: '1.00' }, undefined],
    ['double', 'double', 0.0825, 0.0825],
    ['double from string', 'double', '45.41634', undefined],
    ['timestamp with offset', 'timestamp', '2008-01-10T11:00:00-05:00', '2008-01-10T11:00:00-05:00'],
    ['timestamp without offset', 'timestamp', '2008-01-10 11:00:00', undefined],
    ['timestamp as number', 'timestamp', 1199980800, undefined],
    ['unicode string', 'string', 'Für Oma ❤ 株式会社 😀', 'Für Oma ❤ 株式会社 😀'],
    ['string with quotes, newline, tab', 'string', 'a "b"\n\tc', 'a "b"\n\tc'],
    ['lone surrogate', 'string', 'bad \ud800 text', undefined],
    ['number as string column', 'string', 5, undefined],
    ['json array', 'json', [1, 'a'], '[1,"a"]'],
    ['json object with a big id', 'json', { id: 9223372036854775807n }, '{"id":9223372036854775807}'],
    ['json string', 'json', 'x', '"x"'],
  ])('%s', (_name, type, value, expected) => {
    expect(toCell(type, value)).toStrictEqual(expected);
  });
});

describe('isTimestamp', () => {
  it.each([
    ['2008-01-10T11:00:00-05:00', true],
    ['2024-10-18T18:44:12Z', true],
    ['2024-10-18T18:44:12.123456+05:30', true],
    ['2024-02-29T00:00:00Z', true],
    ['2023-02-29T00:00:00Z', false],
    ['1900-02-29T00:00:00Z', false],
    ['2000-02-29T00:00:00Z', true],
    ['2022-04-31T00:00:00Z', false],
    ['2022-13-01T00:00:00Z', false],
    ['0000-01-01T00:00:00Z', false],
    ['2022-01-01T24:00:00Z', false],
    ['2022-01-01T00:60:00Z', false],
    ['2022-01-01T00:00:60Z', false],
    ['2022-01-01T00:00:00.1234567Z', false],
    ['2022-01-01T00:00:00.Z', false],
    ['2022-01-01T00:00:00+24:00', false],
    ['2022-01-01T00:00:00+0500', false],
    ['2022-01-01t00:00:00z', false],
    ['2022-01-01T00:00:00', false],
    ['2022-01-01T00:00:00Z ', false],
  ])('%s → %s', (text, valid) => {
    expect(isTimestamp(text)).toBe(valid);
  });
});

describe('isDecimal', () => {
  it.each([
    ['0', true],
    ['199.00', true],
    ['-0.01', true],
    ['99999999999999.9999', true],
    ['100000000000000', false],
    ['1.', false],
    ['.5', false],
    ['+1', false],
    [' 1', false],
    ['1.00000', false],
    ['', false],
    ['-', false],
  ])('%s → %s', (text, valid) => {
    expect(isDecimal(text)).toBe(valid);
  });
});

describe('jsonText', () => {
  it('writes bigints as bare literals and escapes lone surrogates', () => {
    expect(jsonText({ a: [1n, 9007199254740993n], s: '\ud800' })).toBe('{"a":[1,9007199254740993],"s":"\\ud800"}');
  });
});
