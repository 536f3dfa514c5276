import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import { convertToParquet } from '../../src/sink/parquet.js';
import { lineSha256, RawArchiveWriter } from '../../src/sink/raw-archive-writer.js';
import { RecordIndexWriter, recordIndexTable } from '../../src/sink/record-index-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { readArchiveLines } from '../../src/snapshot/archive-lines.js';
import type { ManifestFile } from '../../src/snapshot/manifest.js';
import { type ArchivePlace, placeColumns, placeOf, placesSql } from '../../src/snapshot/record-index.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';

let dir: string;
let storage: LocalDirStorage;
/** Every record written, by id, and where the index places it. */
const records = new Map<string, { text: string; place: ArchivePlace }>();
let raw: ManifestFile[];

/**
 * Records whose text compresses unevenly: runs of random hex, then runs of one letter. In a member that holds random
 * lines before many of one letter, a line among the latter lies much farther into the compressed bytes than into the
 * lines: the first, short decompression falls short of it, and the whole member is decompressed.
 */
function recordText(id: number): string {
  const filler = id % 60 < 30 ? randomBytes(1_500).toString('hex') : 'a'.repeat(6_000);
  return `{"id":${id},"note":"${filler}"}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-archive-lines-'));
  storage = new LocalDirStorage(dir);
  const index = new RecordIndexWriter({ dir: join(dir, 'staging', 'index'), resource: 'orders' });
  const writer = new RawArchiveWriter({
    dir: join(dir, 'snap', 'raw'),
    resource: 'orders',
    index,
    maxRowsPerPart: 300,
  });
  const texts = new Map<string, string>();
  for (let id = 1; id <= 500; id++) {
    const text = recordText(id);
    texts.set(String(id), text);
    await writer.write(Buffer.from(text), { id: String(id), updatedAt: undefined });
  }
  const written = await writer.close();
  raw = written
    .filter((file) => file.format === 'raw')
    .map((file) => ({ ...file, path: relative(join(dir, 'snap'), file.path) }));
  const indexFiles = await Promise.all(
    written
      .filter((file) => file.format === 'index')
      .map((file: WrittenFile) => convertToParquet(file, recordIndexTable('orders'), join(dir, 'index'))),
  );
  const files = indexFiles.map((file) => file.path);
  await withDuckDb({}, async (connection) => {
    await connection.run(
      `CREATE TEMP TABLE wanted AS SELECT id FROM read_parquet([${files.map(sqlString).join(', ')}])`,
    );
    const result = await connection.runAndReadAll(
      `SELECT p.id::VARCHAR, ${placeColumns('p')} FROM (${placesSql(files, 'wanted')}) p`,
    );
    for (const [id, ...place] of result.getRowsJS()) {
      records.set(String(id), { text: texts.get(String(id)) as string, place: placeOf(place) as ArchivePlace });
    }
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readArchiveLines', () => {
  it('reads each record asked for, in the order asked, from its own gzip member: first, last and middle lines', async () => {
    expect(records.size).toBe(500);
    expect(new Set([...records.values()].map(({ place }) => place.part))).toEqual(new Set([0, 1]));
    const members = new Set([...records.values()].map(({ place }) => `${place.part}@${place.offset}`));
    expect(members.size).toBeGreaterThan(4);
    const asked = [...records.values()].sort(() => Math.random() - 0.5);
    const lines = await readArchiveLines(
      storage,
      'snap',
      raw,
      asked.map(({ place }) => place),
    );
    expect(lines.map((line) => ('text' in line ? line.text.toString('utf8') : line.problem))).toEqual(
      asked.map(({ text }) => text),
    );
  });

  it('reads each record alone (decompressing its member only up to it, or whole where that falls short)', async () => {
    for (const { text, place } of records.values()) {
      expect(await readArchiveLines(storage, 'snap', raw, [place])).toEqual([{ text: Buffer.from(text) }]);
    }
    const apart = ['2', '250', '499'].map((id) => records.get(id) as { text: string; place: ArchivePlace });
    const lines = await readArchiveLines(
      storage,
      'snap',
      raw,
      apart.map(({ place }) => place),
    );
    expect(lines).toEqual(apart.map(({ text }) => ({ text: Buffer.from(text) })));
  });

  it('names a line that is not the record its index row describes, and a member that is no gzip', async () => {
    const { place } = records.get('7') as { place: ArchivePlace };
    const wrongSha = { ...place, sha256: lineSha256(Buffer.from('{"id":7}')) };
    const wrongLine = { ...place, line: place.line + 1 };
    const [first, second] = await readArchiveLines(storage, 'snap', raw, [wrongSha, wrongLine]);
    const part = `raw/orders/part-0000${place.part}.jsonl.gz`;
    expect(first).toEqual({ problem: `line ${place.line} of ${part} is not the record its index row describes` });
    expect(second).toEqual({ problem: `line ${place.line + 1} of ${part} is not the record its index row describes` });
    const [shifted] = await readArchiveLines(storage, 'snap', raw, [{ ...place, offset: place.offset + 1 }]);
    expect(shifted).toMatchObject({
      problem: expect.stringMatching(/^raw\/orders\/part-0000\d\.jsonl\.gz bytes \d+-\d+ are no gzip member/),
    });
    await expect(readArchiveLines(storage, 'snap', raw, [{ ...place, part: 9 }])).rejects.toMatchObject({
      code: 'ERR_ARCHIVE_INDEX',
      message: `${dir}/snap: the record index names raw part 9, which the manifest does not list`,
    });
  });

  it.each([
    ['no optional fields', 0, Buffer.alloc(0)],
    ['a file name (FNAME)', 8, Buffer.from('orders.jsonl\0')],
    ['extra fields (FEXTRA)', 4, Buffer.from([4, 0, 1, 2, 3, 4])],
    ['a comment and a header CRC (FCOMMENT, FHCRC)', 16 | 2, Buffer.from([...Buffer.from('note\0'), 0xab, 0xcd])],
  ])('reads a member whose gzip header has %s', async (_name, flags, optional) => {
    const text = Buffer.from('{"id":1}\n{"id":2}\n');
    const header = Buffer.from([0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 255]);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(text), 0);
    trailer.writeUInt32LE(text.length, 4);
    const member = Buffer.concat([header, optional, deflateRawSync(text), trailer]);
    await mkdir(join(dir, 'handmade'), { recursive: true });
    await writeFile(join(dir, 'handmade', 'part-00000.jsonl.gz'), member);
    const file: ManifestFile = {
      path: 'part-00000.jsonl.gz',
      table: 'orders',
      format: 'raw',
      rows: 2,
      bytes: member.length,
      sha256: '',
    };
    const place = (line: number, record: string): ArchivePlace => ({
      part: 0,
      line,
      sha256: lineSha256(Buffer.from(record)),
      offset: 0,
      firstLine: 1,
      memberLines: 2,
      end: undefined,
    });
    const lines = await readArchiveLines(storage, 'handmade', [file], [place(2, '{"id":2}'), place(1, '{"id":1}')]);
    expect(lines).toEqual([{ text: Buffer.from('{"id":2}') }, { text: Buffer.from('{"id":1}') }]);
  });
});
