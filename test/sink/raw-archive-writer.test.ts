import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/local-file.js';
import { parseJson } from '../../src/shopify/json.js';
import { lineSha256, RawArchiveWriter } from '../../src/sink/raw-archive-writer.js';
import { RecordIndexWriter, recordIndexTable } from '../../src/sink/record-index-writer.js';
import { listFiles, readBack } from './read-back.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-raw-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(path: string): Promise<string[]> {
  return gunzipSync(await readFile(path))
    .toString('utf8')
    .split('\n');
}

const RECORDS = [
  '{"id":9223372036854775807,"total_price":"0.29","note":"line\\nbreak \\"quoted\\" 😀 株式会社"}',
  '{"id":9007199254740993,"rate":0.0825,"weight":1.250,"tags":""}',
  '{"id":-9223372036854775808,"empty":[],"nested":{"a":null}}',
];

describe('RawArchiveWriter', () => {
  it('keeps every record byte for byte, one a line', async () => {
    const writer = new RawArchiveWriter({ dir, resource: 'orders' });
    for (const record of RECORDS) await writer.write(Buffer.from(record));
    const [file, ...more] = await writer.close();
    expect(more).toEqual([]);
    expect(file).toMatchObject({ path: join(dir, 'orders', 'part-00000.jsonl.gz'), table: 'orders', format: 'raw' });
    expect(file?.rows).toBe(3);
    expect(await hashFile(file?.path ?? '')).toEqual({ sha256: file?.sha256, bytes: file?.bytes });
    expect(await lines(file?.path ?? '')).toEqual([...RECORDS, '']);
  });

  it('removes line breaks between tokens of a multi-line record, keeping its value exact', async () => {
    const pretty = '{\r\n  "id": 9007199254740993,\n  "note": "a\\nb"\n}';
    const writer = new RawArchiveWriter({ dir, resource: 'products' });
    await writer.write(Buffer.from(pretty));
    const [file] = await writer.close();
    const [line] = await lines(file?.path ?? '');
    expect(line).toBe('{  "id": 9007199254740993,  "note": "a\\nb"}');
    expect(parseJson(line ?? '')).toEqual(parseJson(pretty));
  });

  it('keeps records longer than a write batch, multi-byte text included, in order', async () => {
    const huge = `{"body_html":"${'😀é株'.repeat(100_000)}"}`;
    const records = [RECORDS[0] as string, huge, RECORDS[1] as string, huge, RECORDS[2] as string];
    const writer = new RawArchiveWriter({ dir, resource: 'products' });
    for (const record of records) await writer.write(Buffer.from(record));
    const [file] = await writer.close();
    expect(file?.rows).toBe(5);
    expect(await lines(file?.path ?? '')).toEqual([...records, '']);
  });

  it('rejects text that is not a JSON object record', async () => {
    const writer = new RawArchiveWriter({ dir, resource: 'customers' });
    await expect(writer.write(Buffer.from(''))).rejects.toMatchObject({ code: 'ERR_SINK_RAW_RECORD' });
    await expect(writer.write(Buffer.from('[1]'))).rejects.toMatchObject({ code: 'ERR_SINK_RAW_RECORD' });
    await writer.abort();
  });

  it('rotates parts by rows and by bytes', async () => {
    const byRows = new RawArchiveWriter({ dir: join(dir, 'rows'), resource: 'orders', maxRowsPerPart: 2 });
    for (const record of RECORDS) await byRows.write(Buffer.from(record));
    expect((await byRows.close()).map((file) => file.rows)).toEqual([2, 1]);

    // 20,000 lines of 40 bytes (newline included): 800,000 bytes.
    const noise = Array.from({ length: 20_000 }, (_, i) => `{"n":"${String(i).padStart(31, '0')}"}`);
    const byBytes = new RawArchiveWriter({ dir: join(dir, 'bytes'), resource: 'orders', maxBytesPerPart: 300_000 });
    for (const record of noise) await byBytes.write(Buffer.from(record));
    const parts = await byBytes.close();
    expect(parts.map((file) => file.rows)).toEqual([7_500, 7_500, 5_000]);
    expect(parts.reduce((sum, file) => sum + file.rows, 0)).toBe(noise.length);
    const back = (await Promise.all(parts.map((file) => lines(file.path)))).flatMap((text) => text.slice(0, -1));
    expect(back).toEqual(noise);
    expect((await listFiles(dir)).filter((path) => path.includes('.tmp'))).toEqual([]);
  });

  it('with a record index, gives each record a row naming its part, line and the gzip member holding it', async () => {
    const index = new RecordIndexWriter({ dir: join(dir, 'index'), resource: 'orders', firstPart: 3 });
    const writer = new RawArchiveWriter({
      dir,
      resource: 'orders',
      index,
      maxBytesPerPart: 600_000,
      firstPart: 3,
    });
    const noise = Array.from({ length: 20_000 }, (_, i) => `{"id":${i + 1},"n":"${String(i).padStart(31, '0')}"}`);
    for (const [i, record] of noise.entries()) {
      await writer.write(Buffer.from(record), { id: String(i + 1), updatedAt: '2026-11-22T05:06:23-05:00' });
    }
    const written = [...(await writer.rotate()), ...(await writer.rotate(true)), ...(await writer.close())];
    const raw = written.filter((file) => file.format === 'raw');
    const indexParts = written.filter((file) => file.format === 'index');
    // Auto-rotated by bytes, then an empty part at the rotation asked for even if empty; the index parts go with them.
    expect(raw.map((file) => [file.path.slice(dir.length), file.rows])).toEqual([
      ['/orders/part-00003.jsonl.gz', 11_983],
      ['/orders/part-00004.jsonl.gz', 8_017],
      ['/orders/part-00005.jsonl.gz', 0],
    ]);
    expect(indexParts.map((file) => file.rows)).toEqual([20_000, 0]);
    const { rows } = await readBack(indexParts, recordIndexTable('orders'));
    // A member's first line is the smallest line indexed with its offset: every line has its row.
    const members = new Map<string, { first: number; lines?: string[] }>();
    for (const row of rows) {
      const key = `${row.part}@${row.gzip_offset}`;
      const first = members.get(key)?.first ?? Number.POSITIVE_INFINITY;
      members.set(key, { first: Math.min(first, Number(row.line)) });
    }
    for (const [i, row] of rows.entries()) {
      const member = members.get(`${row.part}@${row.gzip_offset}`) as { first: number; lines?: string[] };
      if (member.lines === undefined) {
        const part = raw.find((file) => file.path.endsWith(`part-0000${row.part}.jsonl.gz`));
        const bytes = await readFile(part?.path as string);
        member.lines = gunzipSync(bytes.subarray(Number(row.gzip_offset)))
          .toString('utf8')
          .split('\n');
      }
      const text = member.lines[Number(row.line) - member.first];
      expect(text, `row ${i}`).toBe(noise[i]);
      expect(row).toMatchObject({ id: String(i + 1), sha256: lineSha256(Buffer.from(text as string)) });
    }
    expect(members.size).toBeGreaterThan(3);
    expect(gunzipSync(await readFile(raw[2]?.path as string))).toHaveLength(0);
  });
});
