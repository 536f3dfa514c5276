import { describe, expect, it } from 'vitest';
import { parseShard, selectShard, shardOf } from '../../src/runner/shard.js';

const shops = Array.from({ length: 300 }, (_, i) => `shop-${i}.myshopify.com`);

describe('shardOf (rendezvous hashing)', () => {
  it('gives every shop exactly one of n shards, roughly evenly', () => {
    const shards = [0, 1, 2].map((index) => selectShard(shops, { index, count: 3 }, (s) => s));
    expect(shards.flat().sort()).toEqual([...shops].sort());
    for (const shard of shards) expect(shard.length).toBeGreaterThan(70);
  });

  it('moves no existing shop when a shop is added', () => {
    const before = new Map(shops.map((shop) => [shop, shardOf(shop, 3)]));
    const after = [...shops, 'newcomer.myshopify.com'];
    expect(after.filter((shop) => before.has(shop) && before.get(shop) !== shardOf(shop, 3))).toEqual([]);
  });

  it('moves about 1/n of the shops when a worker is added', () => {
    const moved = shops.filter((shop) => shardOf(shop, 3) !== shardOf(shop, 4)).length;
    expect(moved / shops.length).toBeGreaterThan(0.15);
    expect(moved / shops.length).toBeLessThan(0.35);
  });
});

describe('parseShard', () => {
  it.each([
    [undefined, {}, { index: 0, count: 1 }],
    ['1/3', {}, { index: 1, count: 3 }],
    [undefined, { JOB_COMPLETION_INDEX: '2', SHOPSNAP_SHARD_COUNT: '3' }, { index: 2, count: 3 }],
  ])('%s with %j', (text, env, expected) => {
    expect(parseShard(text, env)).toEqual(expected);
  });

  it.each([['3/3'], ['1/0'], ['a/b'], ['1']])('rejects %s', (text) => {
    expect(() => parseShard(text, {})).toThrow(/invalid shard/);
  });
});
