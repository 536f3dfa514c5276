import { describe, expect, it } from 'vitest';
import { changeWindowStart, checkCounts, needsChangeCount } from '../../src/snapshot/count-check.js';
import { isSnapshotId, newSnapshotId } from '../../src/snapshot/snapshot-id.js';

describe('checkCounts', () => {
  it.each([
    [{ before: 10, after: 10, exported: 10, changed: 0 }, 'ok'],
    [{ before: 0, after: 0, exported: 0, changed: 0 }, 'ok'],
    [{ before: 10, after: 10, exported: 10, changed: 3 }, 'ok'],
    [{ before: 10, after: 10, exported: 9, changed: 0 }, 'mismatch'],
    [{ before: 10, after: 10, exported: 11, changed: 0 }, 'mismatch'],
    // A create and a delete mid-crawl: the count holds, the export is one over, and the new record shows the change.
    [{ before: 10, after: 10, exported: 11, changed: 1 }, 'drift'],
    [{ before: 10, after: 10, exported: 9, changed: 2 }, 'drift'],
    [{ before: 10, after: 12, exported: 11, changed: 0 }, 'drift'],
    [{ before: 12, after: 10, exported: 12, changed: 0 }, 'drift'],
  ] as const)('%j → %s', (evidence, expected) => {
    expect(checkCounts(evidence)).toBe(expected);
  });
});

describe('needsChangeCount', () => {
  it.each([
    [{ before: 10, after: 10, exported: 10, changed: 0 }, false],
    [{ before: 10, after: 11, exported: 9, changed: 0 }, false],
    [{ before: 10, after: 10, exported: 11, changed: 1 }, false],
    [{ before: 10, after: 10, exported: 9, changed: 0 }, true],
  ] as const)('%j → %s', (evidence, expected) => {
    expect(needsChangeCount(evidence)).toBe(expected);
  });
});

describe('changeWindowStart', () => {
  it('starts a minute before the snapshot, in whole seconds', () => {
    expect(changeWindowStart('2026-11-22T05:06:23.123Z').toISOString()).toBe('2026-11-22T05:05:23.000Z');
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
