/** Numbers, sizes and durations as people read them in logs and on a terminal (ASCII only: widths stay countable). */

/** 1234567 → "1,234,567". */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB": whole bytes below 1 KiB, one decimal below 100 of a unit. */
export function bytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 100 ? value.toFixed(0) : value.toFixed(1);
  return `${shown} ${BYTE_UNITS[unit]}`;
}

/** 9.4 → "9 s", 125 → "2 min 5 s", 7380 → "2 h 3 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** plural(1, 'page') → "1 page", plural(3, 'retry', 'retries') → "3 retries". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** Rows as aligned columns, two spaces apart; the columns numbered in `right` (figures) aligned right. */
export function textTable(rows: readonly (readonly string[])[], right: ReadonlySet<number> = new Set()): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const cell = (text: string, i: number) =>
    right.has(i) ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  return rows.map((row) => row.map(cell).join('  ').trimEnd()).join('\n');
}
