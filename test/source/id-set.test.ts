import { describe, expect, it } from 'vitest';
import { IdSet } from '../../src/source/id-set.js';

describe('IdSet', () => {
  it.each([
    ['small ids', ['1', '2', '450789469']],
    ['ids around 2^53, where doubles stop being exact', ['9007199254740992', '9007199254740993', '9007199254740994']],
    ['int64 extremes', ['9223372036854775807', '-9223372036854775808', '0', '-1']],
    ['ids equal in their low 32 bits', ['4294967297', '1', '8589934593']],
    ['strings that are not canonical int64s', ['007', '7', '9223372036854775808', 'abc', '', ' 7', '0x1f', '31', '-0']],
  ])('%s: each once, each found, none confused with another', (_name, ids) => {
    const set = new IdSet();
    for (const id of ids) expect(set.add(id)).toBe(true);
    for (const id of ids) expect(set.add(id)).toBe(false);
    for (const id of ids) expect(set.has(id)).toBe(true);
    expect(set.size).toBe(ids.length);
  });

  it('agrees with a Set of strings over 200,000 ids, big ones included, while it grows', () => {
    const set = new IdSet();
    const oracle = new Set<string>();
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let i = 0; i < 200_000; i++) {
      const id =
        i % 100 === 0
          ? (9007199254740993n + BigInt(next()) * 1_000_003n).toString()
          : String(5_200_000_000_000 + (next() % 400_000));
      expect(set.add(id)).toBe(!oracle.has(id));
      oracle.add(id);
    }
    expect(set.size).toBe(oracle.size);
    for (let i = 0; i < 1000; i++) {
      const probe = String(5_200_000_000_000 + (next() % 800_000));
      expect(set.has(probe)).toBe(oracle.has(probe));
    }
  });
});
