import { describe, expect, it } from 'vitest';
import { floorPer1000, leastPer1000, type SnapshotBenchRun } from '../../src/bench/snapshot-bench.js';

/** A run whose floor and stages are given per 1,000 records; only what the floor and the least read is filled in. */
function runOf(options: {
  records: number;
  sample: number;
  floor: { parse: number; gzip: number; reread: number; parquetWrite: number };
  stages: { scan: number; flatten: number; encode: number; convert: number };
}): SnapshotBenchRun {
  const { records, sample, floor, stages } = options;
  const total = (per1000: number, count: number) => (per1000 * count) / 1000;
  return {
    records,
    jsonParseCpuSecondsPer1000: floor.parse,
    floor: {
      gzip: total(floor.gzip, records),
      reread: total(floor.reread, records),
      parquetWrite: total(floor.parquetWrite, records),
    },
    stages: {
      records: sample,
      parse: 0,
      ndjson: 0,
      raw: 0,
      reread: 0,
      scan: total(stages.scan, sample),
      flatten: total(stages.flatten, sample),
      encode: total(stages.encode, sample),
      convert: total(stages.convert, sample),
    },
  } as SnapshotBenchRun;
}

const FLOOR = { parse: 0.04, gzip: 0.07, reread: 0.05, parquetWrite: 0.03 };

describe('leastPer1000', () => {
  it.each([
    [
      'the floor plus each step; rows into DuckDB is the conversion less the Parquet write',
      { records: 1000, sample: 1000, floor: FLOOR, stages: { scan: 0.02, flatten: 0.03, encode: 0.04, convert: 0.08 } },
      [0.02, 0.03, 0.04, 0.05],
      0.33,
    ],
    [
      'the stages sampled on fewer records than the snapshot holds',
      {
        records: 100_000,
        sample: 10_000,
        floor: FLOOR,
        stages: { scan: 0.02, flatten: 0.03, encode: 0.04, convert: 0.08 },
      },
      [0.02, 0.03, 0.04, 0.05],
      0.33,
    ],
    [
      'a conversion measured below the floor’s Parquet write hands rows over for nothing, never less',
      { records: 1000, sample: 1000, floor: FLOOR, stages: { scan: 0.01, flatten: 0, encode: 0, convert: 0.02 } },
      [0.01, 0, 0, 0],
      0.2,
    ],
  ])('%s', (_name, run, steps, total) => {
    const least = leastPer1000(runOf(run));
    expect(least.steps.map((step) => step.toFixed(9))).toEqual(steps.map((step) => step.toFixed(9)));
    expect(least.total).toBeCloseTo(total, 9);
    expect(floorPer1000(runOf(run))).toBeCloseTo(0.19, 9);
  });
});
