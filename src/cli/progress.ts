import type { ResourceName } from '../shopify/resources.js';
import type { Manifest } from '../snapshot/manifest.js';
import type { CrawlProgress } from '../source/index.js';
import { textTable } from './describe.js';

export interface ProgressDisplay {
  update(progress: CrawlProgress): void;
  finish(manifest: Manifest | undefined): void;
}

const REDRAW_MS = 250;

/** Live per-resource progress and a closing summary on a terminal (stderr); silent when stderr is not a TTY. */
export function attachProgress(
  resources: readonly ResourceName[],
  stream: NodeJS.WriteStream = process.stderr,
): ProgressDisplay {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const started = Date.now();
  const latest = new Map<ResourceName, CrawlProgress>();
  let drawnLines = 0;
  const draw = () => {
    const seconds = (Date.now() - started) / 1000;
    const lines = resources.map((resource) => {
      const p = latest.get(resource);
      if (p === undefined) return `${resource.padEnd(10)} waiting`;
      const rate = p.records / Math.max(seconds, 0.001);
      const expected = p.expected ?? 0;
      const remaining = expected > p.records ? (expected - p.records) / Math.max(rate, 1e-9) : 0;
      return [
        resource.padEnd(10),
        `${p.records}/${p.expected ?? '?'}`.padStart(17),
        `${p.pages} pages`.padStart(11),
        `${rate.toFixed(0)}/s`.padStart(8),
        `ETA ${remaining.toFixed(0)}s`.padStart(9),
        `bucket ${p.bucketUsed}/${p.bucketMax ?? '?'}`.padStart(15),
        `${p.retries} retries`,
      ].join(' ');
    });
    if (drawnLines > 0) stream.write(`\x1b[${drawnLines}A`);
    stream.write(lines.map((line) => `\x1b[2K${line}\n`).join(''));
    drawnLines = lines.length;
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  return {
    update(progress) {
      latest.set(progress.resource, progress);
    },
    finish(manifest) {
      clearInterval(timer);
      draw();
      if (manifest !== undefined) stream.write(renderSummary(manifest, (Date.now() - started) / 1000));
    },
  };
}

export function renderSummary(manifest: Manifest, seconds: number): string {
  const rows: string[][] = [['table', 'format', 'files', 'rows', 'bytes']];
  const byTable = new Map<string, { format: string; files: number; rows: number; bytes: number }>();
  for (const file of manifest.files) {
    const key = `${file.table}\u0000${file.format}`;
    const entry = byTable.get(key) ?? { format: file.format, files: 0, rows: 0, bytes: 0 };
    entry.files++;
    entry.rows += file.rows;
    entry.bytes += file.bytes;
    byTable.set(key, entry);
  }
  for (const [key, entry] of byTable) {
    rows.push([key.split('\u0000')[0] ?? '', entry.format, `${entry.files}`, `${entry.rows}`, `${entry.bytes}`]);
  }
  const checks = [['resource', 'before', 'after', 'exported', 'check', 'duplicates', 'unknown fields']];
  for (const [resource, s] of Object.entries(manifest.resources)) {
    checks.push([
      resource,
      `${s.count_before}`,
      `${s.count_after}`,
      `${s.exported}`,
      s.check,
      `${s.duplicates_dropped}`,
      `${s.unknown_fields}`,
    ]);
  }
  const shrinks = (manifest.suspicious_shrink ?? []).map(
    ({ resource, previous, current }) =>
      `suspicious shrink: ${resource} ${previous} → ${current} records since the last complete snapshot\n`,
  );
  return `\n${textTable(checks)}\n${textTable(rows)}\n${shrinks.join('')}${manifest.status} in ${seconds.toFixed(1)} s\n`;
}
