/** How the CLI's listings write sizes, durations and tables for people. */

export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** `0.4 s`, `41.9 s`, `3 min 18 s`, `2 h 05 min`. */
export function describeSeconds(seconds: number): string {
  const tenths = Math.round(seconds * 10) / 10;
  if (tenths < 60) return `${tenths.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')} min`;
}

/** Rows as aligned columns, two spaces apart; the columns numbered in `right` (figures) aligned right. */
export function textTable(rows: readonly (readonly string[])[], right: ReadonlySet<number> = new Set()): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const cell = (text: string, i: number) =>
    right.has(i) ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  return rows.map((row) => row.map(cell).join('  ').trimEnd()).join('\n');
}
