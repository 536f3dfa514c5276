import { describe, expect, it } from 'vitest';
import { RecordChannel } from '../../src/source/record-channel.js';

describe('RecordChannel', () => {
  it('delivers every item in order and ends on close', async () => {
    const channel = new RecordChannel<number>(2);
    const producing = (async () => {
      for (let i = 0; i < 10; i++) await channel.push(i);
      channel.close();
    })();
    const seen: number[] = [];
    for await (const item of channel) seen.push(item);
    await producing;
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('holds producers while the buffer is full (backpressure)', async () => {
    const channel = new RecordChannel<number>(3);
    let pushed = 0;
    const producing = (async () => {
      for (let i = 0; i < 10; i++) {
        await channel.push(i);
        pushed++;
      }
      channel.close();
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pushed).toBe(3);
    const iterator = channel[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pushed).toBe(4);
    for (let result = await iterator.next(); !result.done; result = await iterator.next());
    await producing;
    expect(pushed).toBe(10);
  });

  it("measures the consumer's own time per item, not the time between items arriving", async () => {
    const channel = new RecordChannel<number>(10);
    expect(channel.consumerMsPerItem).toBeUndefined();
    const producing = (async () => {
      for (let i = 0; i < 4; i++) {
        // Items arrive 60 ms apart; the consumer spends about 10 ms on each.
        await new Promise((resolve) => setTimeout(resolve, 60));
        await channel.push(i);
      }
      channel.close();
    })();
    for await (const _ of channel) await new Promise((resolve) => setTimeout(resolve, 10));
    await producing;
    const perItem = channel.consumerMsPerItem as number;
    expect(perItem).toBeGreaterThanOrEqual(9);
    expect(perItem).toBeLessThan(40);
  });

  it("leaves the consumer's warm-up out of its time per item", async () => {
    const channel = new RecordChannel<number>(10, { warmUpItems: 2 });
    for (let i = 0; i < 4; i++) await channel.push(i);
    channel.close();
    let index = 0;
    for await (const _ of channel) {
      // The first two items (the warm-up) take 60 ms each, the others about 5.
      await new Promise((resolve) => setTimeout(resolve, index++ < 2 ? 60 : 5));
      if (index === 2) expect(channel.consumerMsPerItem).toBeUndefined();
    }
    const perItem = channel.consumerMsPerItem as number;
    expect(perItem).toBeGreaterThanOrEqual(4);
    expect(perItem).toBeLessThan(40);
  });

  it('tells a producer when the consumer takes an item', async () => {
    let takes = 0;
    const channel = new RecordChannel<number>(10, { onTake: () => takes++ });
    await channel.push(1);
    await channel.push(2);
    expect(takes).toBe(0);
    const iterator = channel[Symbol.asyncIterator]();
    await iterator.next();
    expect(takes).toBe(1);
    await iterator.next();
    expect(takes).toBe(2);
  });

  it('throws the failure to the consumer after the buffered items', async () => {
    const channel = new RecordChannel<number>(5);
    await channel.push(1);
    channel.fail(new Error('boom'));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of channel) seen.push(item);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual([1]);
  });

  it('releases blocked producers when the consumer stops early', async () => {
    const channel = new RecordChannel<number>(1);
    const producing = (async () => {
      for (let i = 0; i < 5; i++) await channel.push(i);
    })();
    for await (const _ of channel) break;
    await expect(producing).rejects.toThrow(/consumer stopped/);
  });
});
