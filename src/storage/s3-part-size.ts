const MIB = 1024 * 1024;

/** Smallest part we send: above S3's 5 MiB floor, large enough to keep request counts low. */
export const MIN_PART_SIZE = 8 * MIB;

/**
 * S3 allows 10,000 parts; sizing for 9,000 leaves headroom if the file grows between stat and upload. Rounded up to
 * whole MiB so part boundaries are easy to reason about. 5 TiB (S3's object limit) gives 583 MiB parts.
 */
const TARGET_PARTS = 9000;

/** Part size for a multipart upload of `bytes` bytes: 8 MiB up to ~70 GiB, then growing so parts stay below 9,000. */
export function partSizeFor(bytes: number): number {
  const needed = Math.ceil(bytes / TARGET_PARTS);
  return Math.max(MIN_PART_SIZE, Math.ceil(needed / MIB) * MIB);
}
