import { describe, expect, it } from 'vitest';
import type { SnapshotEntry } from '../../src/snapshot/catalog.js';
import { describeDuration, parseDuration, planRetention, type ShopRunState } from '../../src/snapshot/retention.js';
import { newSnapshotId, snapshotTime } from '../../src/snapshot/snapshot-id.js';

const NOW = Date.parse('2026-11-22T05:00:00.000Z');
const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const POLICY = { keepWithinMs: 35 * DAY, keepLast: 2, resumeMaxAgeMs: DAY };
const NO_RUN: ShopRunState = { leaseLive: false };

/** `c40` = complete, 40 days old; `i`, `u`, `d` = incomplete, unfinished, damaged; `h` after the number = hours. */
function entry(code: string): SnapshotEntry {
  const match = /^([ciud])(\d+)(h?)$/.exec(code);
  if (match === null) throw new Error(code);
  const id = newSnapshotId(new Date(NOW - Number(match[2]) * (match[3] === 'h' ? HOUR : DAY)));
  const state = ({ c: 'complete', i: 'incomplete', u: 'unfinished', d: 'damaged' } as const)[match[1] as 'c'];
  return { shop: 's', id, key: `s/${id}`, state, objects: 1, bytes: 1 };
}

/** The codes planRetention removes from `codes` (given newest last, as the catalog lists them). */
function removed(codes: string[], run = NO_RUN, policy = POLICY): string[] {
  const entries = codes.map(entry);
  const plan = planRetention(entries, policy, run, NOW);
  return plan.decisions.flatMap((decision, i) => (decision.remove ? [codes[i] as string] : []));
}

describe('planRetention', () => {
  it.each([
    ['nothing older than the window', ['c30', 'c20', 'c1'], []],
    [
      'complete, incomplete and damaged snapshots older than the window',
      ['c90', 'i80', 'd70', 'c50', 'c40', 'c1'],
      ['c90', 'i80', 'd70', 'c50'],
    ],
    ['but never the newest keep-last complete ones', ['c90', 'c80', 'i50', 'c40', 'c10'], ['c90', 'c80', 'i50']],
    ['nothing with a manifest while the newest complete is older than the window', ['c90', 'c40', 'i30', 'i1'], []],
    ['nothing with a manifest without a complete snapshot', ['i90', 'd80', 'i1'], []],
    ['abandoned unfinished ones past the resume age, even then', ['c90', 'u3', 'u2', 'u23h'], ['u3', 'u2']],
    ['an unfinished one within the window too', ['c1', 'u2', 'u1h'], ['u2']],
  ])('removes %s', (_name, codes, expected) => {
    expect(removed(codes)).toEqual(expected);
  });

  it('keeps an unfinished snapshot past the resume age that a live run is on, not one a dead run left', () => {
    const codes = ['c1', 'u3', 'u2'];
    const [, u3, u2] = codes.map(entry);
    const live = planRetention(
      [entry('c1'), u3 as SnapshotEntry, u2 as SnapshotEntry],
      POLICY,
      { leaseLive: true, checkpointSnapshot: u3?.id },
      NOW,
    );
    expect(live.decisions.map((d) => d.remove)).toEqual([false, false, true]);
    expect(live.decisions[1]?.reason).toBe('unfinished, a live run is on it');
    const dead = planRetention(
      [entry('c1'), u3 as SnapshotEntry],
      POLICY,
      { leaseLive: false, checkpointSnapshot: u3?.id },
      NOW,
    );
    expect(dead.decisions.map((d) => d.remove)).toEqual([false, true]);
  });

  it('keep-last 0 still keeps the newest complete snapshot inside the window', () => {
    expect(removed(['c90', 'c40', 'c1'], NO_RUN, { ...POLICY, keepLast: 0 })).toEqual(['c90', 'c40']);
  });

  it('says why it holds everything back', () => {
    const plan = planRetention(['c90', 'c40'].map(entry), POLICY, NO_RUN, NOW);
    expect(plan.hold).toBe(`the newest complete snapshot (${entry('c40').id}) is older than 35 days`);
    expect(planRetention([entry('c1')], POLICY, NO_RUN, NOW).hold).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it.each([
    ['35d', 35 * DAY],
    ['12h', 12 * HOUR],
    [' 1d ', DAY],
    ['0d', undefined],
    ['35', undefined],
    ['1.5d', undefined],
    ['-3d', undefined],
    ['3w', undefined],
  ])('%j → %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    [35 * DAY, '35 days'],
    [DAY, '1 day'],
    [12 * HOUR, '12 h'],
  ])('describes %i ms as %s', (ms, text) => {
    expect(describeDuration(ms)).toBe(text);
  });
});

describe('snapshotTime', () => {
  it.each(['2026-11-22T05:06:23.123Z', '2024-02-29T23:59:59.999Z', '1999-01-01T00:00:00.000Z'])(
    'reads back the start of the snapshot id written at %s',
    (iso) => {
      expect(snapshotTime(newSnapshotId(new Date(iso)))).toBe(Date.parse(iso));
    },
  );

  it('refuses what is not a snapshot id', () => {
    expect(() => snapshotTime('20261122T050623Z')).toThrow('not a snapshot id: 20261122T050623Z');
  });
});
