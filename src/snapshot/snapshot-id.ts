/** UTC, sortable, one path segment: 20261122T050623Z (milliseconds added so two runs in one second differ). */
export function newSnapshotId(now: Date): string {
  const iso = now.toISOString(); // 2026-11-22T05:06:23.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}Z`;
}

const SNAPSHOT_ID = /^\d{8}T\d{9}Z$/;

export function isSnapshotId(text: string): boolean {
  return SNAPSHOT_ID.test(text);
}

/** The UTC start time a snapshot id stands for, in ms since the epoch. */
export function snapshotTime(id: string): number {
  if (!isSnapshotId(id)) throw new Error(`not a snapshot id: ${id}`);
  return Date.parse(id.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/, '$1-$2-$3T$4:$5:$6.$7Z'));
}
