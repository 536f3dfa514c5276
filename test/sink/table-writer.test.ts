import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonObject, parseJson } from '../../src/shopify/json.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { Row } from '../../src/transform/cells.js';
import { tablesFor, toRows } from '../../src/transform/index.js';
import { apiFixture } from '../helpers/api-fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-ndjson-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function withoutNulls(row: Row): JsonObject {
  return Object.fromEntries(Object.entries(row).filter(([, cell]) => cell !== null)) as JsonObject;
}

describe('TableWriter', () => {
  it('writes each row of a real order as one gzip NDJSON line that parses back to the row', async () => {
    const record = parseJson(
      JSON.stringify(apiFixture('orders')).replace('"id":450789469', '"id":9223372036854775807'),
    ) as JsonObject;
    const shaped = toRows('orders', record);
    for (const table of tablesFor('orders')) {
      const writer = new TableWriter({ dir, table });
      const rows = shaped.rows.filter((entry) => entry.table === table.name).map((entry) => entry.row);
      for (const row of rows) await writer.write(row);
      const [file] = await writer.close();
      const lines = gunzipSync(await readFile(file?.path ?? ''))
        .toString('utf8')
        .split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => parseJson(line))).toEqual(rows.map(withoutNulls));
    }
    expect(shaped.rows.filter((entry) => entry.row.order_id === 9223372036854775807n)).toHaveLength(11);
  });
});
