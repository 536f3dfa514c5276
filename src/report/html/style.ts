/** The report's styles, inline in its page: system fonts, and nothing else to load. */
export const STYLE = `
:root { color-scheme: light; --ink: #1a202c; --muted: #5a6472; --line: #e2e8f0; --card: #f7fafc;
  --ok: #276749; --ok-bg: #e6f4ea; --warning: #8a4b08; --warning-bg: #fdf3d8; --failing: #a61b1b; --failing-bg: #fde8e8; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 24px; color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 0 0 12px; } h3 { font-size: 14px; margin: 0 0 8px; }
header p, .muted { color: var(--muted); margin: 0; }
section { margin-top: 28px; padding-top: 20px; border-top: 1px solid var(--line); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  background: var(--card); color: var(--muted); vertical-align: middle; }
.badge.ok, .badge.complete, .badge.running { background: var(--ok-bg); color: var(--ok); }
.badge.warning, .badge.unfinished, .badge.abandoned { background: var(--warning-bg); color: var(--warning); }
.badge.failing, .badge.failed, .badge.incomplete, .badge.damaged { background: var(--failing-bg); color: var(--failing); }
.grid { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 10px; }
dt { color: var(--muted); } dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 600; }
td.n, th.n { text-align: right; }
th[data-sort] { cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; } th[aria-sort="descending"]::after { content: " \\25BC"; }
ul.warnings { margin: 0; padding-left: 18px; }
ul.warnings li.failure { color: var(--failing); } ul.warnings li.warning { color: var(--warning); }
ul.warnings li.notice { color: var(--muted); }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 12px 16px; margin: 16px 0; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 2px; }
svg.chart { width: 100%; height: auto; }
svg .grid { stroke: var(--line); } svg .axis, svg .legend, svg .empty { fill: var(--muted); font-size: 11px; }
details summary { cursor: pointer; font-weight: 600; margin-bottom: 6px; }
.changes { font-size: 12px; color: var(--muted); white-space: normal; min-width: 200px; }
table.history { font-size: 13px; }
@media (max-width: 800px) { .grid, .charts { grid-template-columns: 1fr; } }
`;
