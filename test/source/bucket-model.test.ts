import { describe, expect, it } from 'vitest';
import { LeakyBucket } from '../../src/simulator/rate-limit.js';
import { BucketModel, type BucketSample, drainProvableAtMs, parseCallLimit } from '../../src/source/bucket-model.js';

describe('parseCallLimit', () => {
  it.each([
    ['1/40', { used: 1, max: 40 }],
    [' 39 / 400 ', { used: 39, max: 400 }],
    [undefined, undefined],
    ['40', undefined],
    ['a/40', undefined],
    ['1/0', undefined],
  ])('%s', (header, expected) => {
    expect(parseCallLimit(header)).toEqual(expected);
  });
});

describe('BucketModel', () => {
  it('lets a burst up to the headroom through before any header, then waits', () => {
    const model = new BucketModel(2, 0);
    for (let i = 0; i < 38; i++) {
      expect(model.waitMs(0)).toBe(0);
      model.send(0);
    }
    expect(model.waitMs(0)).toBeGreaterThan(0);
  });

  it('waits for the leak, at the tier rate until the real rate is learned', () => {
    const model = new BucketModel(2, 0);
    const seq = model.send(0);
    model.observe({ sendMs: 0, seq, used: 38 }, 40, 0);
    // 38 used of 40 with 2 kept free: one more needs one request to leak at 40/20 = 2 per second.
    expect(model.waitMs(0)).toBe(500);
    expect(model.waitMs(500)).toBe(0);
  });

  it.each([
    ['a Basic bucket (40 @ 2/s): one request and 0.2 leaked in 100 ms', 40, 38.8],
    ['Plus (400 @ 20/s): one and 2', 400, 397],
  ])('keeps free %s', (_name, max, room) => {
    const model = new BucketModel(1, 100);
    model.observe({ sendMs: 0, seq: model.send(0), used: 1 }, max, 0);
    expect(model.roomAt(0) + model.levelAt(0)).toBeCloseTo(room, 9);
  });

  it('never believes in more room than a header proves', () => {
    const model = new BucketModel(0);
    model.send(0);
    model.observe({ sendMs: 0, seq: 1, used: 30 }, 40, 100);
    expect(model.levelAt(100)).toBeCloseTo(30 - 0.2, 5);
  });

  it.each([
    ['standard 40 @ 2/s', 40, 2],
    ['40 @ 20/s', 40, 20],
    ['Plus 400 @ 20/s', 400, 20],
    ['80 @ 4/s', 80, 4],
  ])('learns the leak rate of a %s bucket kept busy', (_name, max, leak) => {
    const model = busyModel(max, leak);
    expect(model.leakPerSecond).toBeGreaterThan(leak * 0.8);
    expect(model.leakPerSecond).toBeLessThan(leak * 1.2);
  });

  it.each([
    ['a prompt answer, less the leak since the request arrived', 80, true],
    ['a slow answer, which may have waited on our side, with nothing leaked', 500, false],
  ])('after %s, puts the level at the header plus the sends since', (_name, roundTripMs, prompt) => {
    const model = busyModel(40, 20);
    const t = 10_000;
    // Twenty sends the server had already let leak away, then the one whose answer says 5 used.
    for (let i = 0; i < 20; i++) model.send(t);
    const seq = model.send(t);
    model.observe({ sendMs: t, seq, used: 5 }, 40, t + roundTripMs, { prompt, wayThereMs: 0 });
    const leak = model.leakPerSecond as number;
    expect(model.levelAt(t + roundTripMs)).toBeCloseTo(5 - (prompt ? (leak * roundTripMs) / 1000 : 0), 6);
  });

  it.each([
    ['Basic 40 @ 2/s, its leak read 5% high', 40, 2, 2.1],
    ['Basic 40 @ 2/s, its leak read 2% low', 40, 2, 1.96],
    ['Plus 400 @ 20/s, its leak read 3% high', 400, 20, 20.6],
  ])('keeps %s below the top through minutes of 1.9 s pages, and sends at its leak', (_name, max, leak, read) => {
    const run = steadyCrawl(max, leak, read, 1900, 180_000);
    expect(run.refused).toBe(0);
    // A crawl bound by the leak gets all of it: the bucket's room once, then the leak for three minutes.
    expect(run.sent).toBeGreaterThan(max - 3 + leak * 180 * 0.98);
  });

  it('treats a bucket 429 as a full bucket and backs a measured leak off, once per overflow episode', () => {
    const model = busyModel(40, 20);
    const leak = model.leakPerSecond as number;
    const t = 10_000;
    for (const at of [t, t + 1, t + 2]) model.markRefused(at, true);
    expect(model.levelAt(t + 2)).toBe(40);
    const backedOff = leak * 0.85;
    expect(model.leakPerSecond).toBeCloseTo(backedOff, 9);
    // One more request fits once the level is below 40 − 2 kept free − what leaks in the 100 ms of send jitter.
    expect(model.waitMs(t + 2)).toBe(Math.ceil(((3 + 0.1 * backedOff) / backedOff) * 1000));
  });

  it.each([
    ['a tier guess (never measured)', () => answered(new BucketModel(3))],
    ['a measured leak', () => busyModel(40, 20)],
  ])('keeps %s at or above the tier rate through a minute-long storm of bucket 429s', (_name, start) => {
    const model = start();
    const t = 10_000;
    // Another client of the same token keeps the bucket full: one overflow episode a second.
    for (let k = 0; k < 60; k++) model.markRefused(t + k * 1001, true);
    expect(model.leakPerSecond).toBeGreaterThanOrEqual(2);
    // A full bucket with 3 kept free needs at most 4 requests to leak at 2/s: never minutes.
    expect(model.waitMs(t + 60 * 1001)).toBeLessThanOrEqual(2000);
  });

  it('ignores a 429 that came while the bucket had room', () => {
    const model = answered(new BucketModel(3));
    model.markRefused(0, false);
    expect(model.leakPerSecond).toBe(2);
    expect(model.waitMs(0)).toBe(0);
  });
});

/**
 * A crawl with always more pages to ask for than the bucket lets through, against a server bucket (the simulator's), each
 * answered `roundTripMs` after it was sent; the model's leak is held at `readLeak` (the measured rate's error) with
 * every answer prompt. Counts what the server let through and what it refused.
 */
function steadyCrawl(
  max: number,
  leak: number,
  readLeak: number,
  roundTripMs: number,
  forMs: number,
): { sent: number; refused: number } {
  let now = 0;
  const bucket = new LeakyBucket({ bucket: max, leakPerSecond: leak }, () => now);
  const model = new BucketModel();
  const inFlight: Array<{ sample: BucketSample; answerMs: number }> = [];
  let sent = 0;
  let refused = 0;
  for (; now < forMs; now++) {
    while (inFlight[0] !== undefined && inFlight[0].answerMs <= now) {
      const { sample } = inFlight.shift() as { sample: BucketSample };
      model.observe(sample, max, now, { prompt: true, wayThereMs: roundTripMs / 2 });
      model.leakPerSecond = readLeak;
      model.learnedLeak = true;
    }
    while (model.waitMs(now) === 0) {
      const seq = model.send(now);
      const take = bucket.take();
      if (!take.allowed) {
        refused++;
        model.markRefused(now, true);
        continue;
      }
      sent++;
      const used = parseCallLimit(take.header)?.used as number;
      inFlight.push({ sample: { sendMs: now, seq, used }, answerMs: now + roundTripMs });
    }
  }
  return { sent, refused };
}

/** A model that has seen one answer of a 40-bucket at 1 used, as on a shop that never fills it. */
function answered(model: BucketModel): BucketModel {
  model.observe({ sendMs: 0, seq: model.send(0), used: 1 }, 40, 0);
  return model;
}

describe('BucketModel.planningLeak', () => {
  /** Answers, each `[sent at ms, used]`, received promptly (100 ms round trips) in the order given. */
  function modelAfter(max: number, answers: ReadonlyArray<readonly [number, number]>): BucketModel {
    const model = new BucketModel(3);
    for (const [sendMs, used] of answers) {
      model.observe({ sendMs, seq: model.send(sendMs), used }, max, sendMs + 100);
    }
    return model;
  }
  const burst = (): Array<[number, number]> => [1, 2, 3, 4, 5, 6].map((used) => [0, used]);

  it.each([
    ['before any answer: nothing suggests a limit', 40, [], 500, Number.POSITIVE_INFINITY],
    [
      'a shop whose bucket never showed more than one request (it drains whatever we send)',
      40,
      [...burst().map(([t]) => [t, 1] as [number, number]), [400, 1]],
      500,
      Number.POSITIVE_INFINITY,
    ],
    ['an opening burst into a Basic bucket: the tier guess', 40, burst(), 200, 2],
    ['the same into a Plus bucket', 400, burst(), 200, 20],
    [
      'a bucket in use whose requests sent 600 ms later find it empty: drained faster than we send',
      40,
      [...burst(), [600, 1]],
      800,
      Number.POSITIVE_INFINITY,
    ],
    [
      'that proof a second later: no longer without a limit, but the rate it proved replaces the guess',
      40,
      [...burst(), [600, 1]],
      1800,
      10,
    ],
    [
      'an empty bucket 400 ms after the burst: too short a span to tell a leak from unequal ways there',
      40,
      [...burst(), [400, 1]],
      600,
      2,
    ],
    [
      'a bucket at 4 of 40, 600 ms after a burst of 6: 3 leaked, 5/s, above 1.2 times the tier guess',
      40,
      [...burst(), [600, 4]],
      800,
      Number.POSITIVE_INFINITY,
    ],
    [
      'a bucket at 6 of 40, 600 ms after a burst of 6: 1 leaked, 1.7/s, which a Basic shop leaks',
      40,
      [...burst(), [600, 6]],
      800,
      2,
    ],
    [
      'an empty bucket 3 s in, when no more than the tier guess leaked: answers were slow, the leak is not fast',
      40,
      [...burst(), [3000, 1]],
      3200,
      2,
    ],
    [
      'an empty bucket for a request sent with the burst (it may just have arrived first)',
      40,
      [...burst(), [50, 1]],
      250,
      2,
    ],
  ] as const)('%s', (_name, max, answers, nowMs, expected) => {
    expect(modelAfter(max, answers).planningLeak(nowMs)).toBe(expected);
  });

  // A slow answer may have been counted any time until it came back: its drain runs to then.
  it.each([
    [
      'a count sent 600 ms after a burst of 6, back 1 s later to an empty bucket: 6 leaked in 1.6 s, 3.75/s',
      1600,
      Infinity,
    ],
    ['the same count back 2.5 s later: 6 in 3.1 s, 1.9/s, which a Basic shop leaks', 3100, 2],
  ])('%s', (_name, answeredMs, expected) => {
    const model = modelAfter(40, burst());
    model.observe({ sendMs: 600, seq: model.send(600), used: 1 }, 40, answeredMs, { prompt: false, wayThereMs: 0 });
    expect(model.planningLeak(answeredMs + 100)).toBe(expected);
  });

  // A crawl's opening requests: three counts at once, a first page as each count comes back (all at `pagesAtMs`), each
  // request counted by the simulator's bucket as it leaves; then the bucket probe at drainProvableAtMs, its answer
  // prompt. `expected` is the leak planned with just after it: Infinity where it proved the bucket leaks faster than
  // we send (the chains may decide), the tier guess where it proved nothing.
  it.each([
    ['counts at once into a 40 bucket leaking 20/s: proven 600 ms in', 40, 20, 50, 600, Infinity],
    [
      'counts of 150 ms, the same bucket: still 600 ms in (from the first send, not the counts)',
      40,
      20,
      150,
      600,
      Infinity,
    ],
    [
      'a 40 bucket leaking 8/s, counts of 450 ms: 800 ms in, once the pages have surely arrived',
      40,
      8,
      450,
      800,
      Infinity,
    ],
    ['Basic (40 at 2/s), counts at once: nothing proven', 40, 2, 50, 600, 2],
    ['Advanced (80 at 4/s), counts of 450 ms: nothing proven', 80, 4, 450, 800, 4],
  ] as const)('opening requests and a probe: %s', (_name, max, leak, pagesAtMs, probeAtMs, expected) => {
    let now = 0;
    const bucket = new LeakyBucket({ bucket: max, leakPerSecond: leak }, () => now);
    const model = new BucketModel(3);
    const send = (atMs: number) => {
      now = atMs;
      const used = parseCallLimit(bucket.take().header)?.used as number;
      return { sendMs: atMs, seq: model.send(atMs), used };
    };
    const counts = [send(0), send(0), send(0)];
    for (const count of counts) model.observe(count, max, pagesAtMs);
    for (let page = 0; page < 3; page++) send(pagesAtMs);
    expect(drainProvableAtMs(0, pagesAtMs)).toBe(probeAtMs);
    const probe = send(probeAtMs);
    model.observe(probe, max, probeAtMs + 100);
    expect(model.planningLeak(probeAtMs + 100)).toBe(expected);
  });

  it('after a drain while the pacer held sends back, plans with the rate the drain proved, not without a limit', () => {
    const model = new BucketModel(3);
    for (const used of [1, 2, 3, 4, 5, 6]) model.observe({ sendMs: 0, seq: model.send(0), used }, 40, 100);
    model.noteHeld(300);
    model.observe({ sendMs: 600, seq: model.send(600), used: 1 }, 40, 700);
    // The request counted itself only: all 6 sent before it had leaked within 600 ms, at least 10/s, above the tier
    // guess of 2/s.
    expect(model.planningLeak(800)).toBe(10);
    expect(model.planningLeak(1800)).toBe(10);
  });

  // After the opening burst, a crawl sends at a steady rate, each request on its way to the shop for 20 to 150 ms. A
  // crawl planned for the tier's guess sends a little faster than it: that alone proves a fast leak, and no slower one.
  it.each([
    ['40 leaking 20/s, fed at 3.5/s: the tier guess is wrong, the bucket does not limit us', 40, 20, 3.5, Infinity],
    ['the same fed at 2.6/s', 40, 20, 2.6, Infinity],
    ['40 leaking 2/s (Basic), fed at 1.9/s, just under its leak: never proven faster', 40, 2, 1.9, 2],
    ['the same fed at 3.5/s (the bucket fills)', 40, 2, 3.5, 2],
    ['80 leaking 4/s (Advanced) fed at 3.8/s: never proven faster', 80, 4, 3.8, 4],
    ['the same fed at 5.5/s', 80, 4, 5.5, 4],
  ])('%s', (_name, max, leak, sendsPerSecond, expected) => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const model = fedModel(max, leak, sendsPerSecond, 6000, seed);
      if (Number.isFinite(expected)) expect(model.planningLeak(6000)).toBeCloseTo(expected, 0);
      else expect(model.planningLeak(6000)).toBe(expected);
    }
  });

  it.each([
    [
      'a 40-bucket at 1 of 40, 600 ms after a burst of 6: it leaks at least 10/s, long after the proof',
      [...burst(), [600, 1]],
      10,
      false,
    ],
    [
      'a 40-bucket at 6 of 40 then (1 leaked, 1.7/s, as on a Basic shop): the tier guess stays',
      [...burst(), [600, 6]],
      2,
      true,
    ],
  ] as const)('after %s', (_name, answers, leak, guessed) => {
    const model = modelAfter(40, answers);
    expect(model.leakPerSecond).toBeCloseTo(leak, 9);
    expect(model.leakGuessed).toBe(guessed);
    expect(model.planningLeak(60_000)).toBeCloseTo(leak, 9);
  });

  it('keeps a proven leak through measurements that read lower, and backs off from it when the bucket overflows', () => {
    const model = modelAfter(40, [...burst(), [600, 1]]);
    // A bucket we send to every 700 ms and that shows 5 each time reads 1.4/s: it ran empty between our sends.
    for (let t = 1300; t <= 6000; t += 700) model.observe({ sendMs: t, seq: model.send(t), used: 5 }, 40, t + 100);
    expect(model.learnedLeak).toBe(true);
    expect(model.leakPerSecond).toBe(10);
    model.markRefused(6200, true);
    expect(model.leakPerSecond).toBeCloseTo(8.5, 9);
  });

  it('plans with the measured leak once it is known', () => {
    expect(busyModel(40, 20).planningLeak(6000)).toBeCloseTo(busyModel(40, 20).leakPerSecond as number, 9);
    expect(busyModel(40, 20).planningLeak(6000)).toBeGreaterThan(16);
  });
});

/**
 * A model that watched the simulator's bucket leaking `leak`/s, fed a burst of 6 and then `sendsPerSecond` for `forMs`,
 * each request on its way to the shop for a seeded 20 to 150 ms (so they arrive out of step with their sends), counted
 * on arrival, and answered promptly (100 ms of work and the same way back).
 */
function fedModel(max: number, leak: number, sendsPerSecond: number, forMs: number, seed: number): BucketModel {
  let state = seed;
  const wayThereMs = () => {
    state = (state * 48271) % 2147483647;
    return 20 + (130 * state) / 2147483647;
  };
  const sends = [0, 0, 0, 0, 0, 0];
  for (let t = 1000 / sendsPerSecond; t <= forMs; t += 1000 / sendsPerSecond) sends.push(t);
  const requests = sends.map((sendMs) => ({ sendMs, arrivalMs: sendMs + wayThereMs(), used: 0, seq: 0 }));
  let now = 0;
  const bucket = new LeakyBucket({ bucket: max, leakPerSecond: leak }, () => now);
  for (const request of [...requests].sort((a, b) => a.arrivalMs - b.arrivalMs)) {
    now = request.arrivalMs;
    const take = bucket.take();
    // No row fills its bucket: a refused request would not have been counted.
    expect(take.allowed).toBe(true);
    request.used = parseCallLimit(take.header)?.used as number;
  }
  const events = requests.flatMap((request) => [
    { atMs: request.sendMs, sent: true, request },
    { atMs: 2 * request.arrivalMs - request.sendMs + 100, sent: false, request },
  ]);
  const model = new BucketModel(2);
  for (const { atMs, sent, request } of events.sort((a, b) => a.atMs - b.atMs || Number(b.sent) - Number(a.sent))) {
    if (sent) request.seq = model.send(atMs);
    else model.observe(request, max, atMs, { prompt: true, wayThereMs: 10 });
  }
  return model;
}

/** A model that watched a server bucket fed by our sends at 1.5× its leak rate for 5 s, starting half full. */
function busyModel(max: number, leak: number): BucketModel {
  const model = new BucketModel(2);
  let serverLevel = max / 2;
  let lastMs = 0;
  for (let t = 0; t <= 5000; t += 1000 / (leak * 1.5)) {
    serverLevel = Math.max(0, serverLevel - ((t - lastMs) * leak) / 1000);
    lastMs = t;
    if (serverLevel + 1 > max) continue;
    serverLevel += 1;
    const seq = model.send(t);
    model.observe({ sendMs: t, seq, used: Math.round(serverLevel) }, max, t);
  }
  return model;
}
