import { describe, expect, it } from 'vitest';
import { idText, wireId } from '../../../src/restore/records/ids.js';
import {
  canonicalDecimal,
  canonicalInstant,
  emailKey,
  moneyCents,
  phoneKey,
  tagList,
} from '../../../src/restore/records/values.js';
import { parseJson } from '../../../src/shopify/json.js';

describe('moneyCents', () => {
  it.each([
    ['172.20', 17220],
    ['172.2', 17220],
    [29.85, 2985],
    ['0.00', 0],
    ['-3.30', -330],
    ['10', 1000],
    ['1.005', undefined],
    ['abc', undefined],
    [null, undefined],
  ])('%j → %j', (value, expected) => {
    expect(moneyCents(value)).toBe(expected);
  });
});

describe('canonicalDecimal', () => {
  it.each([
    ['19.90', '19.9'],
    ['19.9', '19.9'],
    [19.9, '19.9'],
    ['0.00', '0'],
    ['-0.00', '0'],
    ['007.50', '7.5'],
    ['-3.330', '-3.33'],
    ['+2', '2'],
    ['598.94', '598.94'],
    ['123456789012345678.1200', '123456789012345678.12'],
    [' 5 ', '5'],
    ['1e3', undefined],
    ['abc', undefined],
    ['', undefined],
    [null, undefined],
    [undefined, undefined],
    [true, undefined],
  ])('%j → %j', (value, expected) => {
    expect(canonicalDecimal(value as never)).toBe(expected);
  });
});

describe('canonicalInstant', () => {
  it.each([
    ['2008-01-10T11:00:00-05:00', '2008-01-10T16:00:00Z'],
    ['2008-01-10T16:00:00Z', '2008-01-10T16:00:00Z'],
    ['2008-01-10T21:30:00+05:30', '2008-01-10T16:00:00Z'],
    ['2008-01-10T23:00:00-05:00', '2008-01-11T04:00:00Z'],
    ['2024-02-29T00:30:00+01:00', '2024-02-28T23:30:00Z'],
    ['2022-09-28T16:37:04.123000-04:00', '2022-09-28T20:37:04.123Z'],
    ['2022-09-28T16:37:04.000001Z', '2022-09-28T16:37:04.000001Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00Z'],
    ['2008-01-10T11:00:00', undefined],
    ['2023-02-29T00:00:00Z', undefined],
    ['yesterday', undefined],
    [null, undefined],
  ])('%j → %j', (value, expected) => {
    expect(canonicalInstant(value)).toBe(expected);
  });
});

describe('emailKey and phoneKey', () => {
  it.each([
    [' Bob.Norman@Mail.Example.COM ', 'bob.norman@mail.example.com'],
    ['ÉLODIE@exemple.fr', 'élodie@exemple.fr'],
    ['', undefined],
    [null, undefined],
  ])('email %j → %j', (value, expected) => {
    expect(emailKey(value)).toBe(expected);
  });

  it.each([
    ['+16136120707', '+16136120707'],
    ['+1 (613) 612-0707', '+16136120707'],
    ['0016136120707', '+16136120707'],
    ['+44 20 7946 0958', '+442079460958'],
    ['555-625-1199', '5556251199'],
    ['ext.', undefined],
    [null, undefined],
  ])('phone %j → %j', (value, expected) => {
    expect(phoneKey(value)).toBe(expected);
  });
});

describe('tagList', () => {
  it.each([
    ['Emotive, Flash Memory, MP3, Music', ['Emotive', 'Flash Memory', 'MP3', 'Music']],
    ['b,a, a ,,  c', ['a', 'b', 'c']],
    [['zeta', 'ünïcode', 'Ω'], ['zeta', 'Ω', 'ünïcode'].sort()],
    ['', []],
    [null, []],
  ])('%j → %j', (value, expected) => {
    expect(tagList(value)).toEqual(expected);
  });
});

describe('ids', () => {
  const parsed = parseJson('[9223372036854775807, 9007199254740993, 632910392, "9223372036854775806", 1.5, null]');
  it.each([
    [0, '9223372036854775807'],
    [1, '9007199254740993'],
    [2, '632910392'],
    [3, '9223372036854775806'],
    [4, undefined],
    [5, undefined],
  ])('idText of item %i is %j', (index, expected) => {
    expect(idText((parsed as never[])[index])).toBe(expected);
  });

  it.each([
    ['632910392', 632910392],
    ['9007199254740991', 9007199254740991],
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807', 9223372036854775807n],
  ])('wireId(%s) is %s', (text, expected) => {
    expect(wireId(text)).toBe(expected);
  });
});
