import { describe, expect, it } from 'vitest';
import { fitWidth, LiveBlock } from '../../src/cli/live-block.js';
import { attachProgress, renderBlock, renderSummary } from '../../src/cli/progress.js';
import type { BoardView, ResourceView } from '../../src/runner/progress-board.js';
import { ProgressBoard } from '../../src/runner/progress-board.js';
import type { Manifest, ManifestFile } from '../../src/snapshot/manifest.js';
import { terminalScreen } from '../helpers/terminal-screen.js';

function terminal(isTTY: boolean, columns = 200): { stream: NodeJS.WriteStream; written: () => string } {
  let text = '';
  const stream = {
    isTTY,
    columns,
    write(chunk: string) {
      // As a terminal's line discipline passes it on (onlcr): a new line also returns the cursor.
      text += chunk.replaceAll('\n', '\r\n');
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, written: () => text };
}

const summary = (exported: number) =>
  ({
    count_before: exported,
    count_after: exported,
    exported,
    check: 'ok',
    drift: 0,
    duplicates_dropped: 2,
    unknown_fields: 1,
    requests: 3,
    filters: {},
  }) as const;

const file = (table: string, format: ManifestFile['format'], rows: number, bytes: number) => ({
  path: `${format}/${table}/part-00000`,
  table,
  format,
  rows,
  bytes,
  sha256: '',
});

const manifest = {
  status: 'complete',
  resources: { customers: summary(1_500), orders: summary(120) },
  files: [
    file('orders', 'parquet', 120, 9_000),
    file('orders', 'ndjson', 120, 30_000),
    file('orders', 'raw', 120, 2_500_000),
    file('order_line_items', 'parquet', 300, 7_000),
    file('order_line_items', 'ndjson', 300, 12_000),
    file('customers', 'parquet', 1_500, 50_000),
    file('customers', 'ndjson', 1_500, 90_000),
    file('customers', 'raw', 1_500, 200_000),
    file('customer_addresses', 'parquet', 2_100, 20_000),
    file('customer_addresses', 'ndjson', 2_100, 30_000),
  ],
} as unknown as Manifest;

const crawling: ResourceView = {
  resource: 'orders',
  state: 'crawling',
  earlier: false,
  records: 1_250_000,
  expected: 5_000_000,
  pages: 5_000,
  retries: 12,
  rate: 4_100,
  etaSeconds: 914,
  unanswered: 3,
  oldestUnansweredMs: 25_000,
  elapsedMs: 300_000,
};

const view: BoardView = {
  resources: [
    { ...crawling, resource: 'products', state: 'waiting', records: 0, expected: undefined, pages: 0, rate: undefined },
    { ...crawling, resource: 'customers', state: 'done', earlier: true, records: 10_000, expected: 10_000 },
    crawling,
  ],
  bucket: { used: 31, max: 40 },
};

describe('renderBlock', () => {
  it('at 200 columns: one line per resource with every column, the shop-wide bucket once', () => {
    expect(renderBlock(view, 200, 312_000)).toEqual([
      'products   waiting',
      'customers  done by an earlier attempt: 10,000 records',
      'orders    1,250,000/5,000,000 25% 5,000 pages 4,100/s ETA 15 min 14 s 12 retries 3 unanswered, 25 s',
      'shop: bucket 31/40, 5 min 12 s elapsed',
    ]);
  });

  it('at 60 columns: the least telling columns give way, no line is longer than the terminal is wide', () => {
    const lines = renderBlock(view, 60, 312_000);
    expect(lines[2]).toBe('orders    1,250,000/5,000,000 25% 4,100/s ETA 15 min 14 s');
    for (const line of lines) expect(line.length).toBeLessThan(60);
  });

  it('shows no rate and no ETA rather than absurd ones, and ? for a count not known yet', () => {
    const lines = renderBlock(
      { ...view, resources: [{ ...crawling, expected: undefined, rate: 0, etaSeconds: undefined, retries: 0 }] },
      200,
      1_000,
    );
    expect(lines[0]).toBe('orders 1,250,000/? 5,000 pages 0/s 3 unanswered, 25 s');
  });

  it('says when the bucket is not known yet', () => {
    expect(renderBlock({ ...view, bucket: undefined }, 80, 0).at(-1)).toBe('shop: bucket not known yet, 0 s elapsed');
  });
});

describe('renderSummary', () => {
  it('groups child tables under their resource with human sizes per format and totals, the checks last', () => {
    expect(renderSummary(manifest, 12.34)).toBe(
      [
        '',
        'table                  rows   parquet    ndjson      raw',
        'customers             1,500  48.8 KiB  87.9 KiB  195 KiB',
        '  customer_addresses  2,100  19.5 KiB  29.3 KiB',
        'orders                  120   8.8 KiB  29.3 KiB  2.4 MiB',
        '  order_line_items      300   6.8 KiB  11.7 KiB',
        'total                 4,020  84.0 KiB   158 KiB  2.6 MiB',
        '',
        'resource   before  after  exported  check  duplicates  unknown fields',
        'customers   1,500  1,500     1,500  ok              2               1',
        'orders        120    120       120  ok              2               1',
        '',
        'complete in 12.3 s: 10 files, 2.8 MiB',
        '',
      ].join('\n'),
    );
  });

  it('at 60 columns: one size per table, and the checks without the columns the manifest holds anyway', () => {
    const wide = { ...manifest, files: [...manifest.files, file('order_discount_applications', 'ndjson', 9, 1_000)] };
    const text = renderSummary(wide, 1, 60);
    for (const line of text.split('\n')) expect(line.length).toBeLessThan(60);
    expect(text).toContain(
      'table                           rows      size\ncustomers                      1,500   332 KiB\n',
    );
    expect(text).toContain('resource   before  after  exported  check  duplicates\n');
  });

  it('names every suspicious shrink, and whether it was accepted', () => {
    const shrunk: Manifest = {
      ...manifest,
      status: 'incomplete',
      suspicious_shrink: [{ resource: 'orders', previous: 5000, current: 120, removed: 4880 }],
    };
    expect(renderSummary(shrunk, 1)).toMatch(
      /^suspicious shrink: orders lost 4,880 of 5,000 records since the last complete snapshot\nincomplete in 1\.0 s/m,
    );
    expect(renderSummary({ ...shrunk, status: 'complete', shrink_accepted: true }, 1)).toMatch(
      /^shrink accepted: orders lost 4,880 of 5,000 records .*\ncomplete in 1\.0 s/m,
    );
  });

  it('shows what changed since the previous complete snapshot', () => {
    const text = renderSummary(
      {
        ...manifest,
        changes: { since: '20261121T050623123Z', resources: { orders: { added: 12, removed: 3, changed: 1_101 } } },
      },
      1,
    );
    expect(text).toMatch(
      /^resource +before +after +exported +check +added +removed +changed +duplicates +unknown fields$/m,
    );
    expect(text).toMatch(/^customers +1,500 +1,500 +1,500 +ok +- +- +- +2 +1$/m);
    expect(text).toMatch(/^orders +120 +120 +120 +ok +12 +3 +1,101 +2 +1$/m);
    expect(text).toMatch(/^added, removed, changed: since 20261121T050623123Z$/m);
  });
});

describe('LiveBlock', () => {
  it('prints each log line once, above the block, and redraws the block in place even at 60 columns', () => {
    const { stream, written } = terminal(true, 60);
    let frame = 0;
    const block = new LiveBlock(stream, () => [`frame ${frame} ${'x'.repeat(80)}`, `second line of frame ${frame}`]);
    for (frame = 0; frame < 5; frame++) {
      block.redraw();
      block.print(`log line ${frame}, long enough to wrap on a narrow terminal: ${'y'.repeat(70)}\n`);
    }
    block.print('a line in ');
    block.print('two writes\n');
    block.stop();
    block.print('after the display\n');
    const screen = terminalScreen(written(), 60, 20);
    expect(screen.filter((line) => line.startsWith('frame'))).toHaveLength(1);
    expect(screen.filter((line) => line.startsWith('second line'))).toEqual(['second line of frame 5']);
    for (let i = 0; i < 5; i++) expect(screen.filter((line) => line.startsWith(`log line ${i},`))).toHaveLength(1);
    expect(screen.filter((line) => line === 'a line in two writes')).toHaveLength(1);
    expect(screen.slice(-4)).toEqual([`frame 5 ${'x'.repeat(51)}`, 'second line of frame 5', 'after the display', '']);
  });

  it('cuts lines one short of the width', () => {
    expect([fitWidth('abc', 4), fitWidth('abcd', 4), fitWidth('abcdef', 4)]).toEqual(['abc', 'abc', 'abc']);
  });
});

describe('attachProgress', () => {
  it('on a terminal, draws the board and leaves it with the summary', () => {
    const { stream, written } = terminal(true);
    const board = new ProgressBoard(['orders', 'customers']);
    board.update({ resource: 'orders', pages: 4, records: 1_000, expected: 1_200, retries: 2 });
    attachProgress(board, stream).finish(manifest);
    const screen = terminalScreen(written(), 200, 40);
    expect(screen).toContain('customers  waiting');
    expect(screen.filter((line) => line.startsWith('orders '))).toEqual([
      'orders    1,000/1,200 83% 4 pages 2 retries',
      'orders                  120   8.8 KiB  29.3 KiB  2.4 MiB',
      'orders        120    120       120  ok              2               1',
    ]);
  });

  it('writes nothing when stderr is not a terminal (log lines only)', () => {
    const { stream, written } = terminal(false);
    attachProgress(new ProgressBoard(['orders']), stream).finish(manifest);
    expect(written()).toBe('');
  });
});
