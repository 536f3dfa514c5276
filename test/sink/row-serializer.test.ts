import { describe, expect, it } from 'vitest';
import { createRowSerializer } from '../../src/sink/row-serializer.js';
import type { Cell } from '../../src/transform/cells.js';
import { type ColumnType, createTable } from '../../src/transform/schema.js';

function lineOf(type: ColumnType, cell: Cell): string {
  const table = createTable({ name: 't', resource: 'orders', shape: { v: type } });
  return createRowSerializer(table)({ v: cell });
}

describe('createRowSerializer', () => {
  it.each<[ColumnType, Cell, string]>([
    ['int64', 9223372036854775807n, '{"v":9223372036854775807}'],
    ['int64', -9223372036854775808n, '{"v":-9223372036854775808}'],
    ['int64', 450789469, '{"v":450789469}'],
    ['int32', -5, '{"v":-5}'],
    ['double', 0.0825, '{"v":0.0825}'],
    ['double', 1e21, '{"v":1e+21}'],
    ['boolean', false, '{"v":false}'],
    ['decimal', '0.29', '{"v":"0.29"}'],
    ['timestamp', '2008-01-10T11:00:00-05:00', '{"v":"2008-01-10T11:00:00-05:00"}'],
    ['string', 'a "q"\n\t\u0001 😀', '{"v":"a \\"q\\"\\n\\t\\u0001 😀"}'],
    ['json', '{"id":9223372036854775807}', '{"v":"{\\"id\\":9223372036854775807}"}'],
    ['string', null, '{}'],
  ])('%s %s → %s', (type, cell, line) => {
    expect(lineOf(type, cell)).toBe(line);
  });

  it.each<[ColumnType, Cell]>([
    ['int64', 2 ** 60],
    ['int64', '5'],
    ['int32', 2 ** 31],
    ['int32', 1.5],
    ['double', '1.5'],
    ['boolean', 1],
    ['decimal', 0.29],
    ['timestamp', 1199980800],
    ['string', 5n],
  ])('rejects a %s column holding %s', (type, cell) => {
    expect(() => lineOf(type, cell)).toThrow(/t\.v: a \w+ cell does not fit column type/);
  });

  it('writes only declared columns, in declaration order', () => {
    const table = createTable({ name: 't', resource: 'orders', shape: { b: 'int32', a: 'string' } });
    expect(createRowSerializer(table)({ a: 'x', undeclared: 1, b: 2 })).toBe('{"b":2,"a":"x"}');
  });
});
