import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReusedDuckDb } from '../../src/sink/duckdb.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'shopsnap-reused-duckdb-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

const LIMITS = { memoryLimit: '256MB', threads: 1 };

/** A table left by one job is seen by the next only on the same instance (each job has its own connection). */
async function sameInstance(duckdb: ReusedDuckDb, spillIn: string, limits = LIMITS): Promise<boolean> {
  try {
    return await duckdb.run(limits, spillIn, async (connection) => {
      await connection.run('SELECT * FROM left_behind');
      return true;
    });
  } catch (error) {
    if (!/left_behind/.test((error as Error).message)) throw error;
    return false;
  }
}

const leaveTable = (duckdb: ReusedDuckDb, spillIn: string, limits = LIMITS) =>
  duckdb.run(limits, spillIn, (connection) => connection.run('CREATE TABLE left_behind AS SELECT 1 AS one'));

describe('ReusedDuckDb', () => {
  it('keeps one instance for jobs of the same limits and spill folder', async () => {
    const duckdb = new ReusedDuckDb();
    await leaveTable(duckdb, work);
    expect(await sameInstance(duckdb, work)).toBe(true);
    expect(await sameInstance(duckdb, work)).toBe(true);
    await duckdb.close();
  });

  it.each([
    ['another spill folder', (duckdb: ReusedDuckDb) => sameInstance(duckdb, join(work, 'elsewhere'))],
    ['another memory limit', (duckdb: ReusedDuckDb) => sameInstance(duckdb, work, { ...LIMITS, memoryLimit: '128MB' })],
    [
      'a job that failed before',
      async (duckdb: ReusedDuckDb) => {
        await expect(duckdb.run(LIMITS, work, (connection) => connection.run('SELECT nonsense('))).rejects.toThrow();
        return sameInstance(duckdb, work);
      },
    ],
    [
      'a close before',
      async (duckdb: ReusedDuckDb) => {
        await duckdb.close();
        return sameInstance(duckdb, work);
      },
    ],
  ])('opens another instance after %s', async (_, next) => {
    const duckdb = new ReusedDuckDb();
    await leaveTable(duckdb, work);
    expect(await next(duckdb)).toBe(false);
    await duckdb.close();
  });

  it('opens another instance after a job that left it holding more memory than it may keep', async () => {
    const duckdb = new ReusedDuckDb();
    // 10,000,000 BIGINTs in a table of the in-memory database: 80 MB the instance holds on to.
    await duckdb.run(LIMITS, work, (connection) =>
      connection.run('CREATE TABLE left_behind AS SELECT range AS n FROM range(10000000)'),
    );
    expect(await sameInstance(duckdb, work)).toBe(false);
    await duckdb.close();
  });

  it('spills into a folder of its own under the spill folder, removed when it closes', async () => {
    const spillIn = join(work, 'spill');
    await mkdir(spillIn);
    const duckdb = new ReusedDuckDb();
    // Sorting 1,000,000 rows of 64-character text does not fit 48 MB: DuckDB spills.
    const sorted =
      'SELECT * FROM (SELECT md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS text FROM range(1000000)) ORDER BY text';
    const spilled = await duckdb.run({ memoryLimit: '48MB', threads: 1 }, spillIn, async (connection) => {
      await connection.run(`COPY (${sorted}) TO '${join(work, 'sorted.parquet')}' (FORMAT parquet)`);
      return readdir(spillIn);
    });
    expect(spilled).toEqual([expect.stringMatching(/^\.duckdb-[0-9a-f]{12}$/)]);
    await duckdb.close();
    expect(await readdir(spillIn)).toEqual([]);
  });
});
