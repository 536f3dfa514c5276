import { describe, expect, it } from 'vitest';
import type { ListedRecord } from '../../src/source/list-page.js';
import { type ChainPosition, HeldCopies, laterCopyWins, mayListAgain } from '../../src/source/newest-copy.js';

const T = Date.parse('2024-03-01T12:00:00Z');
const S = 1000;

describe('laterCopyWins', () => {
  it.each([
    ['a strictly newer later copy', '2024-03-01T12:00:00Z', '2024-03-01T12:00:01Z', true],
    ['a strictly older later copy (answers reordered)', '2024-03-01T12:00:01Z', '2024-03-01T12:00:00Z', false],
    ['the same instant: the later fetch', '2024-03-01T12:00:00Z', '2024-03-01T12:00:00Z', true],
    ['the same instant in another offset', '2024-03-01T07:00:00-05:00', '2024-03-01T12:00:00Z', true],
    ['an offset that makes the earlier text newer', '2024-03-01T12:00:00-05:00', '2024-03-01T16:00:00Z', false],
    ['no updated_at on the kept copy', undefined, '2024-03-01T12:00:00Z', true],
    ['no updated_at on the later copy', '2024-03-01T12:00:00Z', undefined, true],
    ['garbage', 'soon', 'later', true],
  ])('%s', (_name, kept, later, wins) => {
    expect(laterCopyWins(kept, later)).toBe(wins);
  });
});

const chain = (window: ChainPosition['window'], sinceId: bigint, done = false): ChainPosition => ({
  window,
  sinceId,
  done,
});
// Two adjacent windows overlapping by one second at T, as cutWindow makes them.
const left = (sinceId: bigint, done = false) => chain({ maxMs: T }, sinceId, done);
const right = (sinceId: bigint, done = false) => chain({ minMs: T - S }, sinceId, done);

describe('mayListAgain', () => {
  it.each([
    ['a record on the overlap second, the other chain below its id', 50n, T, [left(60n), right(10n)], true],
    ['a record on the overlap second, both chains past it', 50n, T, [left(60n), right(50n)], false],
    ['a record on the overlap second, the other chain done', 50n, T, [left(60n), right(10n, true)], false],
    ['a record well inside the left window', 50n, T - 3600 * S, [left(60n), right(10n)], false],
    ['a record well inside the right window', 50n, T + 3600 * S, [left(10n), right(60n)], false],
    ['a record just past the right window start', 50n, T + S, [left(10n), right(60n)], true],
    ['a record whose created_at is unknown', 50n, Number.NaN, [left(60n), right(10n)], true],
    ['an id above 2^53 against a chain just below it', 2n ** 60n, T, [right(2n ** 60n - 1n)], true],
    ['no chains', 50n, T, [], false],
  ])('%s', (_name, id, createdMs, chains, expected) => {
    expect(mayListAgain(id, createdMs, chains)).toBe(expected);
  });
});

function copy(id: string, createdAt: string | undefined, updatedAt: string | undefined): ListedRecord {
  const bytes = Buffer.from(`{"id":${id},"updated_at":"${updatedAt}"}`);
  return { id, bytes, record: {}, createdAt, updatedAt, mayHoldLongIntegers: id.length >= 16 };
}

describe('HeldCopies', () => {
  it('holds only records a chain may list again, keeps the newest copy, and releases once chains pass them', () => {
    const held = new HeldCopies();
    const onEdge = new Date(T).toISOString();
    const inside = new Date(T - 3600 * S).toISOString();
    const chains = [left(60n), right(10n)];
    expect(held.holdIfListedAgain(copy('50', onEdge, '2024-01-01T00:00:00Z'), chains, false)).toBe(true);
    expect(held.holdIfListedAgain(copy('40', inside, '2024-01-01T00:00:00Z'), chains, false)).toBe(false);
    expect(held.merge(copy('40', inside, '2024-01-01T00:00:00Z'))).toBe(false);
    // The other window lists it again, updated meanwhile; then an older copy from a reordered answer.
    expect(held.merge(copy('50', onEdge, '2024-05-01T00:00:00Z'))).toBe(true);
    expect(held.merge(copy('50', onEdge, '2024-02-01T00:00:00Z'))).toBe(true);
    expect(held.release(chains)).toEqual([]);
    chains[1] = right(55n);
    expect(held.release(chains).map((record) => record.updatedAt)).toEqual(['2024-05-01T00:00:00Z']);
    expect(held.size).toBe(0);
  });

  it('holds everything when told to, and releases everything once no chain is left', () => {
    const held = new HeldCopies();
    expect(held.holdIfListedAgain(copy('7', undefined, undefined), [], true)).toBe(true);
    expect(held.holdIfListedAgain(copy('8', new Date(T).toISOString(), undefined), [], true)).toBe(true);
    expect(held.release([]).map((record) => record.id)).toEqual(['7', '8']);
  });
});
