import { describe, expect, it } from 'vitest';
import { type CrawlBenchRow, rowLine } from '../../src/bench/crawl-bench.js';

const run = (seed: number, spanMs: number, extra: Partial<CrawlBenchRow> = {}): CrawlBenchRow => ({
  latency: 'realistic',
  shop: 'Plus 400 @ 20/s',
  formats: 'default',
  seed,
  boundMs: 15_000,
  drawnMs: 18_000,
  hedgedMs: 16_000,
  hedgedAtTarget: 0.6,
  spanMs,
  processMs: spanMs + 2_000,
  requests: 190,
  fewest: 166,
  mostInFlight: 20,
  throttled: 0,
  usage: { cpuSeconds: 20, maxRssMb: 240, processes: 2, each: [] },
  load: { before: 1, after: 2 },
  ...extra,
});

const cells = (text: string) => text.split('|').map((cell) => cell.trim());

describe('rowLine', () => {
  it('gives one run as it was, without a range', () => {
    const row = cells(rowLine([run(7, 16_000)]));
    expect(row.slice(1, 12)).toEqual([
      'realistic',
      'Plus 400 @ 20/s',
      'default',
      '7',
      '15.0 s',
      '18.0 s',
      '16.0 s',
      '60 %',
      '16.0 s',
      '0.938',
      '1.125',
    ]);
  });

  it('gives the mean of several runs, bound / busy with its range, the most in flight and 429s of all', () => {
    const runs = [
      run(7, 15_000, { mostInFlight: 18, load: { before: 0.5, after: 1 } }),
      run(8, 20_000, { throttled: 1, requests: 200 }),
      run(9, 25_000, {
        mostInFlight: 20,
        throttled: 2,
        usage: { cpuSeconds: 29, maxRssMb: 300, processes: 2, each: [] },
      }),
    ];
    const row = cells(rowLine(runs));
    // bound / busy per run: 1.000, 0.750, 0.600 (the mean of the ratios, not the ratio of the means: 0.750).
    expect(row[4]).toBe('7, 8, 9');
    expect(row[9]).toBe('20.0 s');
    expect(row[10]).toBe('0.783 (0.60–1.00)');
    expect(row.slice(12, 19)).toEqual(['22.0 s', '193 (166)', '20', '3', '23.0 s', '300 MB', '0.5 → 2.0']);
  });
});
