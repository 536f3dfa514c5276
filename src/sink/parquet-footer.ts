import { open } from 'node:fs/promises';

/**
 * The row count a Parquet file's footer declares, read without DuckDB. A file ends with its FileMetaData (Thrift
 * compact protocol), the metadata's length (4 bytes, little-endian) and `PAR1`; num_rows is field 3 of FileMetaData.
 * Starting a DuckDB instance to read those bytes costs about 15 ms of CPU, and every Parquet part is re-read.
 */
export async function parquetFooterRows(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(8);
    if (size < 12) throw new Error(`${size} bytes is too short for Parquet`);
    await handle.read(tail, 0, 8, size - 8);
    const metadataLength = tail.readUInt32LE(0);
    if (tail.toString('latin1', 4) !== MAGIC) throw new Error('no PAR1 at the end');
    if (metadataLength > size - 12) throw new Error(`a footer of ${metadataLength} bytes in ${size}`);
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    if (head.toString('latin1') !== MAGIC) throw new Error('no PAR1 at the start');
    const metadata = Buffer.alloc(metadataLength);
    await handle.read(metadata, 0, metadataLength, size - 8 - metadataLength);
    return fileMetadataRows(metadata);
  } finally {
    await handle.close();
  }
}

const MAGIC = 'PAR1';
const NUM_ROWS_FIELD = 3;

/** Compact protocol type ids. */
const TYPE = {
  stop: 0,
  true: 1,
  false: 2,
  byte: 3,
  i16: 4,
  i32: 5,
  i64: 6,
  double: 7,
  binary: 8,
  list: 9,
  set: 10,
  map: 11,
  struct: 12,
} as const;

/** num_rows of a Thrift-compact FileMetaData; every other field is skipped. */
export function fileMetadataRows(bytes: Uint8Array): number {
  const reader = new CompactReader(bytes);
  let rows: bigint | undefined;
  reader.readStruct((field, type) => {
    if (field === NUM_ROWS_FIELD && type === TYPE.i64) rows = reader.zigzag();
    else reader.skip(type);
  });
  if (rows === undefined || rows < 0n || rows > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`the footer declares no row count (${rows})`);
  }
  return Number(rows);
}

/** Booleans in a collection take a byte each, unlike booleans as fields (whose value is their type). */
function elementType(type: number): number {
  return type === TYPE.true || type === TYPE.false ? TYPE.byte : type;
}

class CompactReader {
  #at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** Calls `onField` for each field until the struct's stop byte; the callback must consume the field's value. */
  readStruct(onField: (field: number, type: number) => void): void {
    let field = 0;
    for (;;) {
      const header = this.#byte();
      const type = header & 0x0f;
      if (type === TYPE.stop) return;
      const delta = header >> 4;
      field = delta === 0 ? Number(this.zigzag()) : field + delta;
      onField(field, type);
    }
  }

  skip(type: number): void {
    switch (type) {
      case TYPE.true:
      case TYPE.false:
        return;
      case TYPE.byte:
        this.#advance(1);
        return;
      case TYPE.i16:
      case TYPE.i32:
      case TYPE.i64:
        this.#varint();
        return;
      case TYPE.double:
        this.#advance(8);
        return;
      case TYPE.binary:
        this.#advance(Number(this.#varint()));
        return;
      case TYPE.list:
      case TYPE.set: {
        const header = this.#byte();
        const size = header >> 4 === 15 ? Number(this.#varint()) : header >> 4;
        for (let i = 0; i < size; i++) this.skip(elementType(header & 0x0f));
        return;
      }
      case TYPE.map: {
        const size = Number(this.#varint());
        if (size === 0) return;
        const types = this.#byte();
        for (let i = 0; i < size; i++) {
          this.skip(elementType(types >> 4));
          this.skip(elementType(types & 0x0f));
        }
        return;
      }
      case TYPE.struct:
        this.readStruct((_field, fieldType) => this.skip(fieldType));
        return;
      default:
        throw new Error(`unknown Thrift compact type ${type} at byte ${this.#at}`);
    }
  }

  /** A zigzag-encoded varint (i16, i32, i64 and field ids). */
  zigzag(): bigint {
    const raw = this.#varint();
    return (raw >> 1n) ^ -(raw & 1n);
  }

  #varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.#byte();
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error(`a varint longer than 10 bytes at byte ${this.#at}`);
  }

  #byte(): number {
    const byte = this.bytes[this.#at];
    if (byte === undefined) throw new Error(`the footer ends early at byte ${this.#at}`);
    this.#at++;
    return byte;
  }

  #advance(count: number): void {
    if (this.#at + count > this.bytes.length) throw new Error(`the footer ends early at byte ${this.#at}`);
    this.#at += count;
  }
}
