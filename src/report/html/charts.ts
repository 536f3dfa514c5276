import { escapeHtml } from './escape.js';

/**
 * Small SVG charts drawn by hand, inline in the page (no script, no library, nothing fetched): a line per series, or a
 * group of bars per x label. Each point carries its value in a `<title>`, which a browser shows on hover.
 */
export interface Series {
  name: string;
  color: string;
  /** One per label; null where the series has no value (a snapshot without a manifest). */
  values: readonly (number | null)[];
}

export interface ChartSpec {
  /** What the chart shows, for screen readers. */
  title: string;
  labels: readonly string[];
  series: readonly Series[];
  kind: 'line' | 'bars';
  /** A value as the axis and the tooltips write it. */
  format: (value: number) => string;
  /** Sizes: the axis' top rounded in KiB, MiB, … rather than in powers of ten. */
  binary?: boolean;
}

const WIDTH = 520;
const HEIGHT = 210;
const LEFT = 64;
const RIGHT = 12;
const TOP = 28;
const BOTTOM = 34;
/** X labels written at most; the others are skipped evenly. */
const MAX_LABELS = 7;

export function chart(spec: ChartSpec): string {
  const values = spec.series.flatMap((series) => series.values.filter((v): v is number => v !== null));
  const label = escapeHtml(spec.title);
  if (values.length === 0) {
    return `<svg class="chart" viewBox="0 0 ${WIDTH} 60" role="img" aria-label="${label}"><text x="${WIDTH / 2}" y="34" text-anchor="middle" class="empty">nothing recorded yet</text></svg>`;
  }
  const max = Math.max(...values);
  const unit = spec.binary ? 1024 ** Math.max(0, Math.floor(Math.log(max) / Math.log(1024))) : 1;
  const top = niceCeiling(max / unit) * unit;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / spec.labels.length;
  const x = (i: number) => LEFT + slot * (i + 0.5);
  const y = (v: number) => TOP + plotHeight - (v / top) * plotHeight;
  const parts: string[] = [];
  for (const fraction of [0, 0.5, 1]) {
    const value = top * fraction;
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value)}" y2="${y(value)}"/>`,
      `<text class="axis" x="${LEFT - 6}" y="${y(value) + 4}" text-anchor="end">${escapeHtml(spec.format(value))}</text>`,
    );
  }
  const every = Math.ceil(spec.labels.length / MAX_LABELS);
  spec.labels.forEach((text, i) => {
    if (i % every !== 0 && i !== spec.labels.length - 1) return;
    parts.push(
      `<text class="axis" x="${x(i)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle">${escapeHtml(text)}</text>`,
    );
  });
  spec.series.forEach((series, s) => {
    parts.push(
      `<rect x="${LEFT + s * 110}" y="6" width="10" height="10" fill="${series.color}"/>`,
      `<text class="legend" x="${LEFT + s * 110 + 14}" y="15">${escapeHtml(series.name)}</text>`,
    );
    parts.push(spec.kind === 'line' ? line(series, spec, x, y) : bars(series, s, spec, slot, x, y));
  });
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">${parts.join('')}</svg>`;
}

type Scale = (value: number) => number;

function line(series: Series, spec: ChartSpec, x: Scale, y: Scale): string {
  const points = series.values.flatMap((v, i) => (v === null ? [] : [[i, v] as const]));
  const path = points.map(([i, v], k) => `${k === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const dots = points.map(
    ([i, v]) =>
      `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${series.color}"><title>${tooltip(series, spec, i, v)}</title></circle>`,
  );
  return `<path d="${path}" fill="none" stroke="${series.color}" stroke-width="2"/>${dots.join('')}`;
}

function bars(series: Series, s: number, spec: ChartSpec, slot: number, x: Scale, y: Scale): string {
  const width = Math.max(1, (slot * 0.8) / spec.series.length);
  return series.values
    .map((v, i) => {
      if (v === null) return '';
      const left = x(i) - (slot * 0.8) / 2 + s * width;
      const height = y(0) - y(v);
      return `<rect x="${left.toFixed(1)}" y="${y(v).toFixed(1)}" width="${width.toFixed(1)}" height="${height.toFixed(1)}" fill="${series.color}"><title>${tooltip(series, spec, i, v)}</title></rect>`;
    })
    .join('');
}

function tooltip(series: Series, spec: ChartSpec, i: number, value: number): string {
  return escapeHtml(`${spec.labels[i]}: ${series.name} ${spec.format(value)}`);
}

/** The axis' top: the maximum rounded up to 1, 2 or 5 times a power of ten (at least 2: ticks at 0, 1 and 2). */
function niceCeiling(max: number): number {
  if (max <= 2) return 2;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) as number;
  return step * power;
}
