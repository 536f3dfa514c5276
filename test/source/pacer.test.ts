import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { Pacer } from '../../src/source/pacer.js';

/** A pacer on a clock the test moves, whose bucket (40, guessed to leak 2/s) is filled up to its ceiling. */
async function fullPacer() {
  const clock = { ms: 0 };
  const pacer = new Pacer(() => clock.ms);
  pacer.observe(await pacer.acquire(0), '1/40', 200, { prompt: true, wayThereMs: 0 });
  let granted = 1;
  while (pacer.state().room >= 1) {
    await pacer.acquire(0);
    granted++;
  }
  return { clock, pacer, granted };
}

/** Moves the clock by one request's worth of leak (2/s) and waits (real time) until the pacer's loop has let one go. */
async function leakOne(clock: { ms: number }, released: () => number): Promise<void> {
  const before = released();
  clock.ms += 500;
  await vi.waitFor(() => expect(released()).toBe(before + 1), { timeout: 5_000, interval: 5 });
}

describe('Pacer', () => {
  it('lets requests go at once while the bucket has room, then holds the rest', async () => {
    const { pacer, granted } = await fullPacer();
    expect(granted).toBeGreaterThanOrEqual(36);
    let sent = false;
    void pacer.acquire(0).then(() => {
      sent = true;
    });
    await sleep(60);
    expect(sent).toBe(false);
  });

  it('releases held requests highest priority first, equal priorities in the order they asked', async () => {
    const { clock, pacer } = await fullPacer();
    const order: string[] = [];
    for (const [name, priority] of [
      ['a', 1],
      ['b', 5],
      ['c', 5],
      ['d', 0],
      ['e', 9],
    ] as const) {
      void pacer.acquire(priority).then(() => order.push(name));
    }
    await sleep(60);
    expect(order).toEqual([]);
    for (let i = 0; i < 5; i++) await leakOne(clock, () => order.length);
    expect(order).toEqual(['e', 'b', 'c', 'a', 'd']);
  });

  it('drops a held request whose signal aborts, and the next one takes its turn', async () => {
    const { clock, pacer } = await fullPacer();
    const controller = new AbortController();
    const aborted = pacer.acquire(9, controller.signal).then(
      () => 'sent',
      (error: unknown) => (error as Error).name,
    );
    let next = 0;
    void pacer.acquire(0).then(() => {
      next++;
    });
    controller.abort();
    expect(await aborted).toBe('AbortError');
    await leakOne(clock, () => next);
  });

  it('refuses at once when the signal has already aborted', async () => {
    const pacer = new Pacer(() => 0);
    const controller = new AbortController();
    controller.abort();
    await expect(pacer.acquire(0, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
