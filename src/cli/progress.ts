import { bytes, count, duration, plural, textTable } from '../human.js';
import type { BoardView, ProgressBoard, ResourceView } from '../runner/progress-board.js';
import { percent, waitingLong } from '../runner/stats-log.js';
import type { Manifest } from '../snapshot/manifest.js';
import { tableByName } from '../transform/index.js';
import { LiveBlock } from './live-block.js';

export interface ProgressDisplay {
  /** Draws the final state, leaves it on screen, and prints the summary of a written snapshot. */
  finish(manifest: Manifest | undefined): void;
}

const REDRAW_MS = 250;

/**
 * Live per-resource progress and a closing summary on a terminal (stderr), with log lines (`stderrLines`) printed
 * above it; nothing when stderr is not a TTY.
 */
export function attachProgress(board: ProgressBoard, terminal: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  if (!terminal.isTTY) return { finish() {} };
  const started = performance.now();
  const block = new LiveBlock(terminal, (columns) => renderBlock(board.view(), columns, performance.now() - started));
  block.showOnStderr();
  const timer = setInterval(() => block.redraw(), REDRAW_MS);
  timer.unref();
  return {
    finish(manifest) {
      clearInterval(timer);
      block.redraw();
      block.stop();
      if (manifest !== undefined) {
        terminal.write(renderSummary(manifest, (performance.now() - started) / 1000, terminal.columns));
      }
    },
  };
}

interface Column {
  /** Lower goes first: a narrow terminal drops the columns with the highest priority numbers. */
  priority: number;
  align: 'left' | 'right';
  cell(view: ResourceView): string;
}

/** The crawling resources' columns, in the order shown. */
const COLUMNS: Column[] = [
  { priority: 0, align: 'left', cell: (v) => v.resource },
  {
    priority: 1,
    align: 'right',
    cell: (v) => `${count(v.records)}/${v.expected === undefined ? '?' : count(v.expected)}`,
  },
  { priority: 2, align: 'right', cell: (v) => (v.expected === undefined ? '' : percent(v.records, v.expected)) },
  { priority: 6, align: 'right', cell: (v) => plural(v.pages, 'page') },
  { priority: 3, align: 'right', cell: (v) => (v.rate === undefined ? '' : `${count(v.rate)}/s`) },
  { priority: 4, align: 'left', cell: (v) => (v.etaSeconds === undefined ? '' : `ETA ${duration(v.etaSeconds)}`) },
  { priority: 7, align: 'left', cell: (v) => (v.retries === 0 ? '' : `${count(v.retries)} retries`) },
  {
    priority: 5,
    align: 'left',
    cell: (v) => (waitingLong(v) ? `${v.unanswered} unanswered, ${duration((v.oldestUnansweredMs ?? 0) / 1000)}` : ''),
  },
];

/**
 * The live block: one line per resource, then the shop's one bucket and the time so far. Columns line up across
 * resources; when the terminal is too narrow for all of them, the least telling go (pages, then retries, …) rather
 * than lines wrapping.
 */
export function renderBlock(view: BoardView, columns: number, elapsedMs: number): string[] {
  const crawling = view.resources.filter((r) => r.state === 'crawling');
  const cells = crawling.map((r) => COLUMNS.map((column) => column.cell(r)));
  const widths = COLUMNS.map((_, i) => Math.max(0, ...cells.map((row) => row[i]?.length ?? 0)));
  widths[0] = Math.max(...view.resources.map((r) => r.resource.length));
  const shown = new Set<number>();
  let used = -1;
  for (const i of COLUMNS.map((_, i) => i).sort((a, b) => (COLUMNS[a]?.priority ?? 0) - (COLUMNS[b]?.priority ?? 0))) {
    const width = widths[i] ?? 0;
    if (width === 0) continue;
    if (used + 1 + width > columns - 1) break;
    used += 1 + width;
    shown.add(i);
  }
  const lines = view.resources.map((r) => {
    const name = r.resource.padEnd(widths[0] ?? 0);
    if (r.state === 'waiting') return `${name}  waiting`;
    if (r.state === 'done') {
      return r.earlier
        ? `${name}  done by an earlier attempt: ${plural(r.records, 'record')}`
        : `${name}  done: ${plural(r.records, 'record')}, ${plural(r.pages, 'page')} in ${duration(r.elapsedMs / 1000)}`;
    }
    const row = cells[crawling.indexOf(r)] ?? [];
    return COLUMNS.flatMap((column, i) => {
      if (!shown.has(i)) return [];
      const text = row[i] ?? '';
      const width = widths[i] ?? 0;
      return [column.align === 'right' ? text.padStart(width) : text.padEnd(width)];
    })
      .join(' ')
      .trimEnd();
  });
  const bucket =
    view.bucket?.max === undefined ? 'bucket not known yet' : `bucket ${view.bucket.used}/${view.bucket.max}`;
  lines.push(`shop: ${bucket}, ${duration(elapsedMs / 1000)} elapsed`);
  return lines;
}

const FORMAT_ORDER = ['parquet', 'ndjson', 'raw'];

/**
 * The closing summary: the files per table, each resource's child tables under it, sizes per format (one size column
 * when the terminal is too narrow for them) and the totals; then the count checks, last, so they stay on screen above
 * the final status.
 */
export function renderSummary(manifest: Manifest, seconds: number, columns = Number.POSITIVE_INFINITY): string {
  const perFormat = fileTable(manifest, true);
  const files = width(perFormat) < columns ? perFormat : fileTable(manifest, false);
  // The changes since the previous complete snapshot, where there is one.
  const changes = manifest.changes?.resources;
  const changeColumns = changes ? ['added', 'removed', 'changed'] : [];
  const checks = [
    ['resource', 'before', 'after', 'exported', 'check', ...changeColumns, 'duplicates', 'unknown fields'],
  ];
  for (const [resource, s] of Object.entries(manifest.resources)) {
    const changed = changes?.[resource as keyof Manifest['resources']];
    checks.push([
      resource,
      count(s.count_before),
      count(s.count_after),
      count(s.exported),
      s.check,
      ...(changes
        ? [changed?.added, changed?.removed, changed?.changed].map((n) => (n === undefined ? '-' : count(n)))
        : []),
      count(s.duplicates_dropped),
      count(s.unknown_fields),
    ]);
  }
  // Duplicates and unknown fields (also in the manifest) give way first on a narrow terminal, then the changes.
  while (width(checks) >= columns && (checks[0]?.length ?? 0) > 5) for (const row of checks) row.pop();
  const since = manifest.changes === undefined ? '' : `added, removed, changed: since ${manifest.changes.since}\n`;
  const shrinks = (manifest.suspicious_shrink ?? []).map(
    ({ resource, previous, removed }) =>
      `${manifest.shrink_accepted ? 'shrink accepted' : 'suspicious shrink'}: ${resource} lost ${count(removed)} of ` +
      `${count(previous)} records since the last complete snapshot\n`,
  );
  const allBytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
  return (
    `\n${table(files)}\n\n${table(checks)}\n${since}\n${shrinks.join('')}` +
    `${manifest.status} in ${seconds.toFixed(1)} s: ${plural(manifest.files.length, 'file')}, ${bytes(allBytes)}\n`
  );
}

/** Rows and sizes per table, children under their resource, with a total; sizes per format, or one per table. */
function fileTable(manifest: Manifest, perFormat: boolean): string[][] {
  const formats = FORMAT_ORDER.filter((format) => manifest.files.some((file) => file.format === format));
  const byTable = new Map<string, { rows: number; bytes: Map<string, number> }>();
  for (const file of manifest.files) {
    const entry = byTable.get(file.table) ?? { rows: 0, bytes: new Map<string, number>() };
    // Each table format holds the same rows; raw holds the resource's records.
    if (file.format === formats.find((format) => format !== 'raw') || formats.every((f) => f === 'raw')) {
      entry.rows += file.rows;
    }
    entry.bytes.set(file.format, (entry.bytes.get(file.format) ?? 0) + file.bytes);
    byTable.set(file.table, entry);
  }
  const order = (table: string): number => {
    const resource = tableByName(table)?.resource ?? table;
    const index = Object.keys(manifest.resources).indexOf(resource);
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  const tables = [...byTable.keys()].sort((a, b) => order(a) - order(b));
  const sizes = (entry: Map<string, number>): string[] =>
    perFormat
      ? formats.map((format) => (entry.has(format) ? bytes(entry.get(format) ?? 0) : ''))
      : [bytes([...entry.values()].reduce((sum, n) => sum + n, 0))];
  const rows: string[][] = [['table', 'rows', ...(perFormat ? formats : ['size'])]];
  const totals = new Map<string, number>();
  for (const table of tables) {
    const entry = byTable.get(table);
    if (entry === undefined) continue;
    const resource = tableByName(table)?.resource;
    rows.push([
      `${resource !== undefined && resource !== table ? '  ' : ''}${table}`,
      count(entry.rows),
      ...sizes(entry.bytes),
    ]);
    for (const [format, n] of entry.bytes) totals.set(format, (totals.get(format) ?? 0) + n);
  }
  const totalRows = [...byTable.values()].reduce((sum, entry) => sum + entry.rows, 0);
  rows.push(['total', count(totalRows), ...sizes(totals)]);
  return rows;
}

/** A table's width as table() prints it. */
function width(rows: string[][]): number {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return widths.reduce((sum, w) => sum + w, 0) + 2 * Math.max(0, widths.length - 1);
}

/** Text columns left-aligned; columns of figures (counts and sizes) right-aligned. */
function table(rows: string[][]): string {
  const figures = (rows[0] ?? []).flatMap((_, column) =>
    rows.slice(1).every((row) => /^(-|[\d,.]*( [KMGT]?i?B)?)$/.test(row[column] ?? '')) ? [column] : [],
  );
  return textTable(rows, new Set(figures));
}
