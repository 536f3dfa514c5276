import { describe, expect, it } from 'vitest';
import { ProgressBoard, RATE_WINDOW_MS, recentRate } from '../../src/runner/progress-board.js';
import { percent, statsLine } from '../../src/runner/stats-log.js';

function clock(start = 10_000) {
  const time = { ms: start };
  return { time, now: () => time.ms };
}

const progress = (records: number, expected: number | undefined, pages = Math.ceil(records / 250)) => ({
  resource: 'orders' as const,
  records,
  expected,
  pages,
  retries: 0,
});

describe('recentRate', () => {
  it.each([
    ['no samples', [], 5_000, undefined],
    ['too short a span to tell', [{ atMs: 0, records: 0 }], 1_000, undefined],
    [
      'since the first sample while the window is young',
      [
        { atMs: 0, records: 0 },
        { atMs: 4_000, records: 2_000 },
      ],
      4_000,
      500,
    ],
    [
      'from the newest sample before the window, not from the start',
      [
        { atMs: 0, records: 0 },
        { atMs: 100_000, records: 1_000 },
        { atMs: 110_000, records: 6_000 },
      ],
      100_000 + RATE_WINDOW_MS,
      250,
    ],
    [
      'a crawl that stalled a whole window ago is at 0',
      [
        { atMs: 0, records: 0 },
        { atMs: 1_000, records: 500 },
      ],
      1_000 + RATE_WINDOW_MS,
      0,
    ],
  ])('%s', (_, samples, now, rate) => {
    expect(recentRate(samples, now)).toBe(rate);
  });
});

describe('ProgressBoard', () => {
  it('shows waiting, then crawling with a recent rate and ETA, then done; no ETA at rate 0', () => {
    const { time, now } = clock();
    const board = new ProgressBoard(['orders', 'customers'], now);
    expect(board.view().resources.map((r) => r.state)).toEqual(['waiting', 'waiting']);
    board.update(progress(0, undefined));
    time.ms += 3_000;
    board.update(progress(1_500, 5_000));
    const crawling = board.view().resources[0];
    expect(crawling).toMatchObject({ state: 'crawling', records: 1_500, expected: 5_000, rate: 500, etaSeconds: 7 });
    // Stalled for a whole window: the rate falls to 0 and no ETA is made up.
    time.ms += RATE_WINDOW_MS + 5_000;
    expect(board.view().resources[0]).toMatchObject({ rate: 0, etaSeconds: undefined });
    board.done('orders', { records: 5_000, expected: 5_000 });
    expect(board.view().resources[0]).toMatchObject({ state: 'done', earlier: false, rate: undefined, records: 5_000 });
  });

  it('measures the rate over the recent window, not since a long wait at the start', () => {
    const { time, now } = clock();
    const board = new ProgressBoard(['orders'], now);
    board.update(progress(0, 10_000));
    // Two minutes without records (a lease wait, a shop slow to answer), then 1,000 records a second.
    time.ms += 120_000;
    board.update(progress(0, 10_000));
    for (let second = 1; second <= 30; second++) {
      time.ms += 1_000;
      board.update(progress(second * 250, 10_000));
    }
    const view = board.view().resources[0];
    expect(view?.rate).toBe(250);
    expect(view?.etaSeconds).toBe(10);
  });

  it('shows a resource done by an earlier attempt as done, not waiting', () => {
    const board = new ProgressBoard(['customers', 'orders'], clock().now);
    board.done('customers', { records: 900, expected: 900 }, true);
    expect(board.view().resources[0]).toMatchObject({ state: 'done', earlier: true, records: 900 });
    expect(board.view().resources[1]).toMatchObject({ state: 'waiting' });
  });

  it('shows the requests each resource has on the wire and the live bucket, kept once the session is gone', () => {
    const { time, now } = clock();
    const board = new ProgressBoard(['orders', 'customers'], now);
    let used = 10;
    board.attach({
      bucket: () => ({ used, max: 40 }),
      unanswered: () => [
        { resource: 'orders', sentMs: 1_000 },
        { resource: 'orders', sentMs: 4_000 },
        { resource: undefined, sentMs: 2_000 },
      ],
    });
    board.update(progress(0, undefined));
    expect(board.view().resources.map((r) => [r.unanswered, r.oldestUnansweredMs])).toEqual([
      [2, 9_000],
      [0, undefined],
    ]);
    used = 31;
    expect(board.view().bucket).toEqual({ used: 31, max: 40 });
    board.attach(undefined);
    time.ms += 1_000;
    expect(board.view().bucket).toEqual({ used: 31, max: 40 });
  });
});

describe('statsLine', () => {
  const base = {
    resource: 'orders' as const,
    state: 'crawling' as const,
    earlier: false,
    records: 1_250,
    expected: 5_000,
    pages: 5,
    retries: 0,
    rate: 410.4,
    etaSeconds: 9.2,
    unanswered: 0,
    oldestUnansweredMs: undefined,
    elapsedMs: 3_000,
  };
  it.each([
    [{}, 'orders: 1,250 of 5,000 records (25%), 5 pages, 410/s, ETA 9 s'],
    [{ rate: undefined, etaSeconds: undefined }, 'orders: 1,250 of 5,000 records (25%), 5 pages'],
    [{ rate: 0, etaSeconds: undefined, retries: 1 }, 'orders: 1,250 of 5,000 records (25%), 5 pages, 0/s, 1 retry'],
    [
      {
        records: 0,
        expected: undefined,
        pages: 0,
        rate: undefined,
        etaSeconds: undefined,
        unanswered: 1,
        oldestUnansweredMs: 25_400,
      },
      'orders: 0 records (count not known yet), 0 pages; 1 request unanswered for 25 s',
    ],
    [
      { unanswered: 3, oldestUnansweredMs: 125_000, retries: 12 },
      'orders: 1,250 of 5,000 records (25%), 5 pages, 410/s, ETA 9 s, 12 retries; 3 requests unanswered, the oldest for 2 min 5 s',
    ],
    // Requests in flight for less than a second are the normal course, not news.
    [{ unanswered: 3, oldestUnansweredMs: 400 }, 'orders: 1,250 of 5,000 records (25%), 5 pages, 410/s, ETA 9 s'],
  ])('%j', (change, line) => {
    expect(statsLine({ ...base, ...change })).toBe(line);
  });

  it.each([
    [0, 0, '100%'],
    [4_999, 5_000, '99%'],
    [5_000, 5_000, '100%'],
    [5_100, 5_000, '100%'],
    [1, 3, '33%'],
  ])('percent(%i, %i) is %s', (part, whole, shown) => {
    expect(percent(part, whole)).toBe(shown);
  });
});
