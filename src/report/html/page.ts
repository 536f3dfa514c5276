import { bytes, count, duration } from '../../human.js';
import { RESOURCES } from '../../shopify/resources.js';
import type { Report } from '../build-report.js';
import type { LastRun, ShopReport, SnapshotPoint } from '../shop-report.js';
import { chart, type Series } from './charts.js';
import { escapeHtml as h } from './escape.js';
import { SORT_SCRIPT } from './sort-script.js';
import { STYLE } from './style.js';

/**
 * The report as one HTML file that needs nothing else: styles, the sorting script and the charts (SVG) inline, and a
 * Content-Security-Policy that lets the page load nothing from anywhere. Figures carry their exact value in a
 * `data-value` attribute (the text is for people: `5,000`, `18.1 MiB`), for sorting, and for tests.
 */
export function reportPage(report: Report): string {
  const body = [
    header(report),
    ...(report.problems.length > 0
      ? [`<ul class="warnings">${report.problems.map((p) => `<li class="warning">${h(p)}</li>`).join('')}</ul>`]
      : []),
    ...(report.shops.length > 1 ? [fleetTable(report)] : []),
    ...report.shops.map(shopSection),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Backups: ${h(report.location)}</title>
<style>${STYLE}</style>
</head>
<body>
${body.join('\n')}
<script>${SORT_SCRIPT}</script>
</body>
</html>
`;
}

function header(report: Report): string {
  const shops = report.shops.length;
  return `<header>
<h1>Backups of ${h(report.location)} <span class="badge ${report.status}" data-field="status">${report.status}</span></h1>
<p>${count(shops)} shop${shops === 1 ? '' : 's'}; a complete snapshot is expected within ${h(report.window)}; generated ${h(when(report.generated_at))} by shopsnap report.</p>
</header>`;
}

const STATUS_ORDER = { ok: 0, warning: 1, failing: 2 } as const;

function fleetTable(report: Report): string {
  const rows = [...report.shops]
    .sort((a, b) => STATUS_ORDER[b.status] - STATUS_ORDER[a.status] || a.shop.localeCompare(b.shop))
    .map((shop) => {
      const last = shop.last_run;
      const complete = shop.snapshots.find((s) => s.snapshot_id === shop.last_complete);
      const records =
        complete === undefined ? null : Object.values(complete.resources).reduce((n, r) => n + r.exported, 0);
      return `<tr data-shop="${h(shop.shop)}">
<td><a href="#${anchor(shop.shop)}">${h(shop.shop)}</a></td>
<td data-value="${STATUS_ORDER[shop.status]}"><span class="badge ${shop.status}">${shop.status}</span></td>
<td data-value="${h(last?.finished_at ?? last?.started_at ?? '')}">${last === null ? 'none' : `<span class="badge ${last.status}">${last.status}</span> ${h(when(last.started_at ?? last.finished_at))}`}</td>
<td data-value="${h(complete?.snapshot_id ?? '')}">${complete === undefined ? 'none' : h(when(complete.started_at))}</td>
<td class="n" data-field="records" data-value="${records ?? -1}">${records === null ? '-' : count(records)}</td>
<td class="n" data-field="bytes" data-value="${complete?.bytes ?? -1}">${complete === undefined ? '-' : bytes(complete.bytes)}</td>
<td class="n" data-field="duration_s" data-value="${last?.duration_s ?? -1}">${last?.duration_s == null ? '-' : duration(last.duration_s)}</td>
<td class="n" data-value="${shop.warnings.length}">${count(shop.warnings.length)}</td>
</tr>`;
    });
  return `<section class="fleet">
<h2>Every shop</h2>
<table class="fleet" data-sortable>
<thead><tr><th data-sort="text">shop</th><th data-sort="number">status</th><th data-sort="text">last run</th><th data-sort="text">last complete</th><th class="n" data-sort="number">records</th><th class="n" data-sort="number">size</th><th class="n" data-sort="number">duration</th><th class="n" data-sort="number">warnings</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<p class="muted">Size and records: the newest complete snapshot. Duration: the last run. Click a heading to sort.</p>
</section>`;
}

function shopSection(shop: ShopReport): string {
  return `<section class="shop" id="${anchor(shop.shop)}" data-shop="${h(shop.shop)}">
<h2>${h(shop.shop)} <span class="badge ${shop.status}" data-field="status">${shop.status}</span></h2>
<div class="grid">
${lastRunCard(shop.last_run)}
${warningsCard(shop)}
</div>
${charts(shop.snapshots)}
${historyTable(shop.snapshots)}
</section>`;
}

function lastRunCard(last: LastRun | null): string {
  if (last === null) return '<div class="card last-run"><h3>Last run</h3><p class="muted">none</p></div>';
  const facts: Array<[string, string, string, string | number | null]> = [
    ['snapshot', 'snapshot_id', last.snapshot_id ?? 'none', last.snapshot_id],
    ['status', 'status', `<span class="badge ${last.status}">${last.status}</span>`, last.status],
    ['started', 'started_at', h(when(last.started_at)), last.started_at],
    ['duration', 'duration_s', last.duration_s === null ? '-' : duration(last.duration_s), last.duration_s],
    ['requests', 'requests', last.requests === null ? '-' : count(last.requests), last.requests],
    ['size', 'bytes', `${bytes(last.bytes)} in ${count(last.files)} files`, last.bytes],
    ...(last.error === undefined
      ? []
      : [['error', 'error', h(last.error), last.error] as [string, string, string, string]]),
  ];
  const list = facts
    .map(
      ([term, field, shown, value]) =>
        `<dt>${term}</dt><dd data-field="${field}" data-value="${h(String(value ?? ''))}">${shown}</dd>`,
    )
    .join('');
  const rows = Object.entries(last.resources).map(
    ([resource, r]) => `<tr data-resource="${resource}">
<td>${resource}</td><td class="n" data-field="exported" data-value="${r.exported}">${count(r.exported)}</td>
<td class="n" data-field="count_before" data-value="${r.count_before}">${count(r.count_before)}</td>
<td class="n" data-field="count_after" data-value="${r.count_after}">${count(r.count_after)}</td>
<td data-field="check"><span class="badge ${r.check === 'ok' ? 'complete' : r.check === 'drift' ? 'unfinished' : 'failed'}">${r.check}</span></td></tr>`,
  );
  const counts =
    rows.length === 0
      ? ''
      : `<table class="counts"><thead><tr><th>resource</th><th class="n">exported</th><th class="n">shop's count before</th><th class="n">after</th><th>check</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return `<div class="card last-run"><h3>Last run</h3><dl>${list}</dl>${counts}</div>`;
}

function warningsCard(shop: ShopReport): string {
  const items = shop.warnings.map(
    (w) =>
      `<li class="${w.severity}" data-kind="${w.kind}">${w.snapshot_id === null ? '' : `${h(w.snapshot_id)}: `}${h(w.message)}</li>`,
  );
  return `<div class="card"><h3>Warnings</h3>${items.length === 0 ? '<p class="muted">none</p>' : `<ul class="warnings">${items.join('')}</ul>`}</div>`;
}

const RESOURCE_COLORS: Readonly<Record<string, string>> = {
  products: '#6b46c1',
  customers: '#2b6cb0',
  orders: '#dd6b20',
};

function charts(snapshots: readonly SnapshotPoint[]): string {
  const labels = axisLabels(snapshots.map((s) => s.started_at));
  const records: Series[] = RESOURCES.filter((r) => snapshots.some((s) => s.resources[r] !== undefined)).map((r) => ({
    name: r,
    color: RESOURCE_COLORS[r] as string,
    values: snapshots.map((s) => s.resources[r]?.exported ?? null),
  }));
  const changed = (kind: 'added' | 'removed' | 'changed') =>
    snapshots.map((s) => (s.changes === null ? null : Object.values(s.changes).reduce((n, c) => n + c[kind], 0)));
  const figures = [
    [
      'Records per resource',
      chart({ title: 'Records per resource', labels, series: records, kind: 'line', format: count }),
    ],
    [
      'Added, removed and changed since the night before',
      chart({
        title: 'Records added, removed and changed since the previous complete snapshot',
        labels,
        series: [
          { name: 'added', color: '#2f855a', values: changed('added') },
          { name: 'removed', color: '#c53030', values: changed('removed') },
          { name: 'changed', color: '#2b6cb0', values: changed('changed') },
        ],
        kind: 'bars',
        format: count,
      }),
    ],
    [
      'Duration',
      chart({
        title: 'Duration of each run',
        labels,
        series: [{ name: 'duration', color: '#4a5568', values: snapshots.map((s) => s.duration_s) }],
        kind: 'bars',
        format: duration,
      }),
    ],
    [
      'Size',
      chart({
        title: 'Size of each snapshot',
        labels,
        series: [{ name: 'size', color: '#319795', values: snapshots.map((s) => s.bytes) }],
        kind: 'bars',
        format: bytes,
        binary: true,
      }),
    ],
  ];
  return `<div class="charts">${figures.map(([caption, svg]) => `<figure><figcaption>${caption}</figcaption>${svg}</figure>`).join('')}</div>`;
}

function historyTable(snapshots: readonly SnapshotPoint[]): string {
  const rows = [...snapshots].reverse().map((s) => {
    const records = RESOURCES.map((r) => {
      const n = s.resources[r]?.exported;
      return `<td class="n" data-field="${r}" data-value="${n ?? ''}">${n === undefined ? '-' : count(n)}</td>`;
    });
    const changes =
      s.changes === null
        ? '-'
        : Object.entries(s.changes)
            .map(([r, c]) => `${r} +${count(c.added)} -${count(c.removed)} ~${count(c.changed)}`)
            .join(', ');
    return `<tr data-snapshot="${h(s.snapshot_id)}">
<td>${h(s.snapshot_id)}</td><td data-field="status"><span class="badge ${s.status}">${s.status}</span></td>${records.join('')}
<td class="changes" data-field="changes">${h(changes)}</td>
<td class="n" data-field="duration_s" data-value="${s.duration_s ?? ''}">${s.duration_s === null ? '-' : duration(s.duration_s)}</td>
<td class="n" data-field="bytes" data-value="${s.bytes}">${bytes(s.bytes)}</td>
<td class="n" data-field="requests" data-value="${s.requests ?? ''}">${s.requests === null ? '-' : count(s.requests)}</td></tr>`;
  });
  return `<details open><summary>Every snapshot (${count(snapshots.length)})</summary>
<table class="history"><thead><tr><th>snapshot</th><th>status</th>${RESOURCES.map((r) => `<th class="n">${r}</th>`).join('')}<th>changes since the previous complete one</th><th class="n">duration</th><th class="n">size</th><th class="n">requests</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></details>`;
}

/** An id a shop's section can be linked by: its folder name, which is already a safe key segment. */
function anchor(shop: string): string {
  return `shop-${shop.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** `2026-11-22 05:06 UTC`. */
function when(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A chart's x labels: `11-22 05:06`, or `05:06:23` when every snapshot is of one day (runs minutes apart). */
function axisLabels(times: readonly string[]): string[] {
  const oneDay = new Set(times.map((iso) => iso.slice(0, 10))).size === 1;
  return times.map((iso) => (oneDay ? iso.slice(11, 19) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`));
}
