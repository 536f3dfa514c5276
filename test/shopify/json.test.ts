import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJson, rawArrayElements, stringifyJson } from '../../src/shopify/json.js';

describe('parseJson', () => {
  it.each([
    ['safe ids stay numbers', '{"id":4503599627370495}', { id: 4503599627370495 }],
    ['2^53+1 becomes an exact bigint', '{"id":9007199254740993}', { id: 9007199254740993n }],
    ['int64 max', '[9223372036854775807]', [9223372036854775807n]],
    ['int64 min', '[-9223372036854775808]', [-9223372036854775808n]],
    ['digits inside strings are untouched', '{"s":"9007199254740993"}', { s: '9007199254740993' }],
    [
      'escaped quotes before a big number',
      '{"s":"a\\"b","id":12345678901234567890}',
      { s: 'a"b', id: 12345678901234567890n },
    ],
    ['long fractions are numbers', '{"x":1.12345678901234567890}', { x: 1.1234567890123457 }],
    ['long exponents are numbers', '{"x":1e-12345678901234567}', { x: 0 }],
    [
      'a body spoofing the marker',
      '{"s":"\\u0000AAAA:9007199254740993","id":9007199254740993}',
      { s: '\u0000AAAA:9007199254740993', id: 9007199254740993n },
    ],
  ])('%s', (_name, text, expected) => {
    expect(parseJson(text)).toEqual(expected);
  });

  it('names malformed input as a JsonSyntaxError', () => {
    expect(() => parseJson('{"orders":[{"id":1}')).toThrow(JsonSyntaxError);
  });
});

describe('stringifyJson', () => {
  it('writes bigints as bare integers that parse back exactly', () => {
    const value = { id: 9223372036854775807n, nested: [{ id: -9007199254740993n }], name: 'ünï 😀' };
    const text = stringifyJson(value);
    expect(text).toBe('{"id":9223372036854775807,"nested":[{"id":-9007199254740993}],"name":"ünï 😀"}');
    expect(parseJson(text)).toEqual(value);
  });

  it.each([
    ['a string spelling a bigint marker', '\u0000\u0001bigint:5'],
    ['a NUL-led string', '\u0000\u0000:12345678901234567890'],
    ['a lone surrogate', '\ud800'],
  ])('writes %s beside a bigint exactly, as valid JSON', (_name, text) => {
    const value = { id: 9007199254740993n, text, list: [text, -9223372036854775808n] };
    expect(parseJson(stringifyJson(value))).toEqual(value);
  });
});

describe('rawArrayElements', () => {
  it.each([
    ['empty list', '{"orders":[]}', 'orders', []],
    [
      'two records verbatim',
      '{"orders":[{"id":1,"a":"]}"} , {"id":2,"b":[{}]}]}',
      'orders',
      ['{"id":1,"a":"]}"}', '{"id":2,"b":[{}]}'],
    ],
    ['other keys are skipped', '{"x":[{"id":9}],"orders":[{"id":1}]}', 'orders', ['{"id":1}']],
    [
      'a nested array with the same key is not the list',
      '{"orders":[{"orders":[{"id":5}]}]}',
      'orders',
      ['{"orders":[{"id":5}]}'],
    ],
  ])('%s', (_name, text, key, expected) => {
    expect(rawArrayElements(text, key)).toEqual(expected);
  });
});

describe('parseJson on bodies where a string imitates a number position', () => {
  it.each([
    ['a note with ": <digits>,"', '{"note":"a: 12345678901234567890, b","id":12345678901234567891}'],
    ['a note with "[<digits>]"', '{"note":"[12345678901234567890]","id":9007199254740993}'],
    ['a note that is only a big number', '{"note":"12345678901234567890","id":1}'],
  ])('%s keeps strings as strings and ids exact', (_name, text) => {
    const value = parseJson(text) as { note: string; id: unknown };
    expect(value.note).toBe((JSON.parse(text) as { note: string }).note);
    expect(String(value.id)).toBe(/"id":(\d+)/.exec(text)?.[1]);
  });
});
