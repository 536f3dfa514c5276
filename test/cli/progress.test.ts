import { describe, expect, it } from 'vitest';
import { attachProgress } from '../../src/cli/progress.js';
import type { Manifest } from '../../src/snapshot/manifest.js';

function terminal(isTTY: boolean): { stream: NodeJS.WriteStream; written: () => string } {
  let text = '';
  const stream = {
    isTTY,
    write(chunk: string) {
      text += chunk;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, written: () => text };
}

const summary = {
  count_before: 120,
  count_after: 120,
  exported: 120,
  check: 'match',
  drift: 0,
  duplicates_dropped: 2,
  unknown_fields: 1,
  requests: 3,
  filters: {},
} as const;

const manifest = {
  status: 'complete',
  resources: { orders: summary },
  files: [
    { path: 'parquet/orders/part-00000.parquet', table: 'orders', format: 'parquet', rows: 120, bytes: 9000 },
    {
      path: 'parquet/order_line_items/part-00000.parquet',
      table: 'order_line_items',
      format: 'parquet',
      rows: 300,
      bytes: 7000,
    },
  ],
} as unknown as Manifest;

describe('attachProgress', () => {
  it('on a terminal, shows records of the expected total, pages, bucket and retries per resource, then a summary', () => {
    const { stream, written } = terminal(true);
    const progress = attachProgress(['orders', 'customers'], stream);
    progress.update({
      resource: 'orders',
      pages: 4,
      records: 90,
      expected: 120,
      bucketUsed: 31,
      bucketMax: 40,
      retries: 2,
    });
    progress.finish(manifest);
    const text = written();
    expect(text).toMatch(/orders +90\/120 +4 pages +\d+\/s +ETA \d+s +bucket 31\/40 2 retries/);
    expect(text).toMatch(/customers +waiting/);
    expect(text).toMatch(/^orders +120 +120 +120 +match +2 +1 *$/m);
    expect(text).toMatch(/^order_line_items +parquet +1 +300 +7000 *$/m);
    expect(text).toMatch(/^complete in \d+\.\d s$/m);
  });

  it('names every suspicious shrink in the summary', () => {
    const { stream, written } = terminal(true);
    attachProgress(['orders'], stream).finish({
      ...manifest,
      status: 'incomplete',
      suspicious_shrink: [{ resource: 'orders', previous: 5000, current: 120 }],
    });
    expect(written()).toMatch(
      /^suspicious shrink: orders 5000 → 120 records since the last complete snapshot\nincomplete in \d+\.\d s$/m,
    );
  });

  it('writes nothing when stderr is not a terminal (logs only, no progress noise)', () => {
    const { stream, written } = terminal(false);
    const progress = attachProgress(['orders'], stream);
    progress.update({
      resource: 'orders',
      pages: 1,
      records: 1,
      expected: 1,
      bucketUsed: 1,
      bucketMax: 40,
      retries: 0,
    });
    progress.finish(manifest);
    expect(written()).toBe('');
  });
});
