import { describe, expect, it } from 'vitest';
import { MIN_PART_SIZE, partSizeFor } from '../../src/storage/s3-part-size.js';

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const TIB = 1024 ** 4;

describe('partSizeFor', () => {
  it.each([
    ['empty', 0, 8 * MIB],
    ['30 MB', 30_000_000, 8 * MIB],
    ['48 GiB', 48 * GIB, 8 * MIB],
    ['100 GiB', 100 * GIB, 12 * MIB],
    ['1 TiB', TIB, 117 * MIB],
    ['5 TiB, the S3 object limit', 5 * TIB, 583 * MIB],
  ])('%s', (_name, bytes, expected) => {
    expect(partSizeFor(bytes)).toBe(expected);
  });

  it.each([0, 1, 8 * MIB, 48 * GIB, 70 * GIB, 71 * GIB + 12_345, 100 * GIB, TIB + 1, 5 * TIB])(
    '%d bytes fit in at most 9,000 parts of whole MiB, none below 8 MiB',
    (bytes) => {
      const size = partSizeFor(bytes);
      expect(size).toBeGreaterThanOrEqual(MIN_PART_SIZE);
      expect(size % MIB).toBe(0);
      expect(Math.ceil(bytes / size)).toBeLessThanOrEqual(9000);
    },
  );
});
