import { describe, expect, it } from 'vitest';
import { fileMetadataRows } from '../../src/sink/parquet-footer.js';

/** Thrift compact bytes, written by hand: a varint, a zigzag varint, a short field header. */
const varint = (value: number): number[] => {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  return [...bytes, rest];
};
const zigzag = (value: number): number[] => varint(value >= 0 ? value * 2 : -value * 2 - 1);
const field = (delta: number, type: number): number[] => [(delta << 4) | type];
const STOP = [0];
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const MAP = 11;
const STRUCT = 12;
const TRUE = 1;

/** FileMetaData's first two fields as writers send them: version 1 and a schema list of two elements. */
const VERSION_AND_SCHEMA = [
  ...field(1, I32),
  ...zigzag(1),
  ...field(1, LIST),
  (2 << 4) | STRUCT,
  ...[...field(4, BINARY), ...varint(6), ...Buffer.from('schema'), ...field(1, I32), ...zigzag(3), ...STOP],
  ...[...field(4, BINARY), ...varint(2), ...Buffer.from('id'), ...field(1, TRUE), ...STOP],
];

describe('fileMetadataRows', () => {
  it.each([
    ['num_rows after version and schema', [...VERSION_AND_SCHEMA, ...field(1, I64), ...zigzag(1234), ...STOP], 1234],
    [
      'num_rows named by a long field header, after a double, a map and a list of 20 booleans',
      [
        ...field(1, DOUBLE),
        ...Array<number>(8).fill(0),
        ...field(1, MAP),
        ...varint(1),
        (BINARY << 4) | I32,
        ...varint(1),
        97,
        ...zigzag(-5),
        ...field(1, LIST),
        (15 << 4) | TRUE,
        ...varint(20),
        ...Array<number>(20).fill(1),
        0 | I64,
        ...zigzag(3),
        ...zigzag(2 ** 40),
        ...STOP,
      ],
      2 ** 40,
    ],
    ['zero rows', [...VERSION_AND_SCHEMA, ...field(1, I64), ...zigzag(0), ...STOP], 0],
  ])('%s', (_name, bytes, rows) => {
    expect(fileMetadataRows(Uint8Array.from(bytes))).toBe(rows);
  });

  it.each([
    ['no num_rows', [...VERSION_AND_SCHEMA, ...STOP], /no row count/],
    ['a negative num_rows', [...VERSION_AND_SCHEMA, ...field(1, I64), ...zigzag(-1), ...STOP], /no row count/],
    ['bytes that end inside the schema', VERSION_AND_SCHEMA.slice(0, 12), /ends early/],
    ['an unknown type', [...field(1, 13), ...STOP], /unknown Thrift compact type 13/],
  ])('rejects a footer with %s', (_name, bytes, message) => {
    expect(() => fileMetadataRows(Uint8Array.from(bytes))).toThrow(message);
  });
});
