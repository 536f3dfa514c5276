import { describe, expect, it } from 'vitest';
import { checkCounts } from '../../src/snapshot/count-check.js';
import { isSnapshotId, newSnapshotId } from '../../src/snapshot/snapshot-id.js';

describe('checkCounts', () => {
  it.each([
    [{ before: 10, after: 10, exported: 10 }, 'ok'],
    [{ before: 0, after: 0, exported: 0 }, 'ok'],
    [{ before: 10, after: 10, exported: 9 }, 'mismatch'],
    [{ before: 10, after: 10, exported: 11 }, 'mismatch'],
    [{ before: 10, after: 12, exported: 11 }, 'drift'],
    [{ before: 12, after: 10, exported: 12 }, 'drift'],
  ] as const)('%j → %s', (counts, expected) => {
    expect(checkCounts(counts)).toBe(expected);
  });
});

describe('newSnapshotId', () => {
  it('is UTC, sortable and one path segment', () => {
    const id = newSnapshotId(new Date('2026-03-08T07:05:09.042Z'));
    expect(id).toBe('20260308T070509042Z');
    expect(isSnapshotId(id)).toBe(true);
    expect(newSnapshotId(new Date('2026-03-08T07:05:09.043Z')) > id).toBe(true);
  });
});
