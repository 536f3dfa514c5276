import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type CopyTiming,
  HedgedRequests,
  hedgeDue,
  type LatePage,
  lateBeyondLeak,
} from '../../src/source/hedged-requests.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('hedgeDue', () => {
  it.each([
    ['nothing measured yet', 10_000, undefined, false],
    ['a 2 s page after 2.9 s: within its spread', 2_900, 2_000, false],
    ['a 2 s page after 3.1 s', 3_100, 2_000, true],
    ['a 40 ms page after 900 ms: late, but a second copy gains nothing', 900, 40, false],
    ['a 40 ms page after 1.1 s', 1_100, 40, true],
  ])('%s', (_name, ageMs, typicalMs, expected) => {
    expect(hedgeDue(ageMs, typicalMs)).toBe(expected);
  });
});

describe('lateBeyondLeak', () => {
  it.each([
    [
      'a 2 s page out 3.1 s, the leak sending for 4 s more: it is expected back before the last request',
      3_100,
      4_000,
      false,
    ],
    ['the same page 6.1 s out', 6_100, 4_000, true],
    ['out 3.1 s, nothing left for the leak to send', 3_100, 0, true],
    ['out 3.1 s, the last request leaving in 1.1 s: back a round trip later, at the same time', 3_100, 1_100, false],
  ])('%s', (_name, ageMs, lastSendMs, expected) => {
    expect(lateBeyondLeak({ ageMs, typicalMs: 2_000 }, lastSendMs)).toBe(expected);
  });
});

/** A copy the test answers by hand, and whether it was abandoned. */
interface Copy {
  answer(value: string): void;
  fail(error: Error): void;
  abandoned: boolean;
}

/** Each copy goes on the wire at once, or, given `held`, waits there for the test to call its timing. */
function sender(copies: Copy[], held?: CopyTiming[]) {
  return (signal: AbortSignal, timing: CopyTiming) =>
    new Promise<string>((resolve, reject) => {
      if (held === undefined) timing.sent();
      else held.push(timing);
      const copy: Copy = { answer: resolve, fail: reject, abandoned: false };
      signal.addEventListener('abort', () => {
        copy.abandoned = true;
      });
      copies.push(copy);
    });
}

describe('HedgedRequests', () => {
  const options = (hedged: () => void, wanted = true) => ({
    typicalMs: () => 2_000,
    wanted: () => wanted,
    onHedge: hedged,
  });

  it('sends a second copy of a late page, takes the first answer and abandons the other', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const copies: Copy[] = [];
    const onHedge = vi.fn();
    const asked: LatePage[] = [];
    const mayHedge = (late: LatePage) => {
      asked.push(late);
      return true;
    };
    const page = new HedgedRequests(mayHedge).run(sender(copies), options(onHedge));
    vi.advanceTimersByTime(2_900);
    expect(copies).toHaveLength(1);
    vi.advanceTimersByTime(300);
    expect(copies).toHaveLength(2);
    expect(onHedge).toHaveBeenCalledTimes(1);
    expect(asked).toEqual([{ ageMs: 3_100, typicalMs: 2_000 }]);
    (copies[1] as Copy).answer('second');
    await expect(page).resolves.toBe('second');
    expect(copies.map((copy) => copy.abandoned)).toEqual([true, false]);
    // Never a third copy.
    vi.advanceTimersByTime(10_000);
    expect(copies).toHaveLength(2);
  });

  it('counts a page late from its latest attempt on the wire: not while held back, nor while waiting to retry', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const copies: Copy[] = [];
    const held: CopyTiming[] = [];
    const page = new HedgedRequests(() => true).run(
      sender(copies, held),
      options(() => undefined),
    );
    const first = held[0] as CopyTiming;
    vi.advanceTimersByTime(5_000);
    first.sent();
    vi.advanceTimersByTime(2_000);
    first.retrying();
    vi.advanceTimersByTime(5_000);
    first.sent();
    vi.advanceTimersByTime(2_900);
    expect(copies).toHaveLength(1);
    vi.advanceTimersByTime(300);
    expect(copies).toHaveLength(2);
    (copies[0] as Copy).answer('first');
    await expect(page).resolves.toBe('first');
  });

  it.each([
    ['no slot or bucket to spare', false, true],
    ['its crawl is not waiting for it', true, false],
  ])('sends no second copy when %s', async (_name, mayHedge, wanted) => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const copies: Copy[] = [];
    const page = new HedgedRequests(() => mayHedge).run(
      sender(copies),
      options(() => undefined, wanted),
    );
    vi.advanceTimersByTime(20_000);
    expect(copies).toHaveLength(1);
    (copies[0] as Copy).answer('first');
    await expect(page).resolves.toBe('first');
  });

  it('waits for the other copy when one fails, and fails with the first error when both do', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const copies: Copy[] = [];
    const hedges = new HedgedRequests(() => true);
    const rescued = hedges.run(
      sender(copies),
      options(() => undefined),
    );
    vi.advanceTimersByTime(3_200);
    (copies[0] as Copy).fail(new Error('first copy: 502'));
    (copies[1] as Copy).answer('second');
    await expect(rescued).resolves.toBe('second');

    const lost = hedges.run(
      sender(copies),
      options(() => undefined),
    );
    vi.advanceTimersByTime(3_200);
    (copies[2] as Copy).fail(new Error('first copy: 502'));
    (copies[3] as Copy).fail(new Error('second copy: reset'));
    await expect(lost).rejects.toThrow('first copy: 502');
  });
});
