import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/shopify/json.js';
import { fieldChanges } from '../../src/shopify/json-diff.js';

const changes = (before: string, after: string) => fieldChanges(parseJson(before), parseJson(after));

describe('fieldChanges', () => {
  it.each([
    ['keys in another order', '{"id":1,"title":"a","tags":"x"}', '{"tags":"x","id":1,"title":"a"}'],
    ['whitespace and escapes', '{"title":"é/\\u00e9","note":"a\\/b"}', '{ "title" : "\\u00e9/é", "note" : "a/b" }'],
    ['numbers written differently', '{"weight":1.50,"rate":0.2,"n":1e2}', '{"weight":1.5,"rate":2e-1,"n":100}'],
    ['big ids written the same', '{"id":9007199254740993123}', '{"id":9007199254740993123}'],
    ['nested objects reordered', '{"a":{"b":1,"c":[{"x":1,"y":2}]}}', '{"a":{"c":[{"y":2,"x":1}],"b":1}}'],
  ])('none for %s', (_name, before, after) => {
    expect(changes(before, after)).toEqual([]);
  });

  it.each([
    ['a changed leaf', '{"id":1,"title":"a"}', '{"id":1,"title":"b"}', [{ path: '$.title', before: 'a', after: 'b' }]],
    [
      'a big id one apart (never through a float)',
      '{"id":9007199254740993}',
      '{"id":9007199254740992}',
      [{ path: '$.id', before: 9007199254740993n, after: 9007199254740992n }],
    ],
    ['a field only on one side', '{"a":1}', '{"a":1,"b":null}', [{ path: '$.b', before: undefined, after: null }]],
    ['null against a value', '{"a":null}', '{"a":0}', [{ path: '$.a', before: null, after: 0 }]],
    ['"1" against 1', '{"a":"1"}', '{"a":1}', [{ path: '$.a', before: '1', after: 1 }]],
    [
      'arrays by position',
      '{"line_items":[{"id":1},{"id":2}]}',
      '{"line_items":[{"id":2},{"id":1}]}',
      [
        { path: '$.line_items[0].id', before: 1, after: 2 },
        { path: '$.line_items[1].id', before: 2, after: 1 },
      ],
    ],
    [
      'an element more, and a key that needs quoting',
      '{"tags":["a"],"odd key":1}',
      '{"tags":["a","b"],"odd key":2}',
      [
        { path: '$.tags[1]', before: undefined, after: 'b' },
        { path: '$["odd key"]', before: 1, after: 2 },
      ],
    ],
    [
      'keys named like what every object inherits',
      '{"a":1}',
      '{"a":1,"constructor":2,"toString":null}',
      [
        { path: '$.constructor', before: undefined, after: 2 },
        { path: '$.toString', before: undefined, after: null },
      ],
    ],
    ['an object where an array was', '{"a":[1]}', '{"a":{"0":1}}', [{ path: '$.a', before: [1], after: { 0: 1 } }]],
  ])('names %s', (_name, before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });

  it("compares leaves with a given comparison, told the field that holds them (an array item: the array's)", () => {
    const keys: Array<string | undefined> = [];
    const sameIgnoringCase = (a: unknown, b: unknown, key: string | undefined) => {
      keys.push(key);
      return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
    };
    const before = parseJson('{"email":"A@B.C","tags":["X"],"n":1}');
    const after = parseJson('{"email":"a@b.c","tags":["x"],"n":2}');
    expect(fieldChanges(before, after, { same: sameIgnoringCase })).toEqual([{ path: '$.n', before: 1, after: 2 }]);
    expect(keys).toEqual(['email', 'tags', 'n']);
    expect(fieldChanges(parseJson('"A"'), parseJson('"a"'), { same: sameIgnoringCase })).toEqual([]);
    expect(keys.at(-1)).toBeUndefined();
  });
});
