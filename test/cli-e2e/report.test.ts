import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { newSnapshotId } from '../../src/snapshot/snapshot-id.js';
import { type BackupHistory, beforeAllHistories, storedManifests } from '../helpers/backup-history.js';
import { BROWSER_REQUIRED, CHROMIUM, NO_BROWSER_REASON, withBrowser } from '../helpers/browser.js';
import { type CliResult, failureLine, lastLine, runCli } from '../helpers/cli.js';

let work: string;
let local: BackupHistory;
let bucket: BackupHistory;
beforeAllHistories('report', (histories) => {
  ({ work, local, bucket } = histories);
});

function report(history: BackupHistory, args: string[], location = history.out): Promise<CliResult> {
  return runCli(['report', location, ...args, ...history.flags], { env: history.env, cwd: work });
}

/** A snapshot as the report's JSON must give it, from its manifest as stored and its objects' sizes. */
function expectedPoint(manifest: Manifest) {
  return {
    snapshot_id: manifest.snapshot_id,
    status: manifest.status,
    started_at: manifest.started_at,
    finished_at: manifest.finished_at,
    duration_s: (Date.parse(manifest.finished_at) - Date.parse(manifest.started_at)) / 1000,
    requests: Object.values(manifest.resources).reduce((sum, r) => sum + (r?.requests ?? 0), 0),
    resources: Object.fromEntries(
      Object.entries(manifest.resources).map(([resource, r]) => [
        resource,
        { exported: r?.exported, count_before: r?.count_before, count_after: r?.count_after, check: r?.check },
      ]),
    ),
    changes: manifest.changes?.resources ?? null,
  };
}

describe.each([
  ['a local destination', () => local],
  ['a bucket (s3rver)', () => bucket],
])('shopsnap report --json over %s', (_name, historyOf) => {
  it('every shop’s history with the manifests’ numbers, its last run, and what is wrong', async () => {
    const history = historyOf();
    const result = await report(history, ['--json']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    const manifests = await storedManifests(history);
    expect(json).toMatchObject({ format: 'shopsnap.report/v1', status: 'failing', window: '35 days', problems: [] });
    expect(json.fleet_summaries.map((s: { key: string; shops: number }) => [s.key, s.shops])).toEqual([
      ['fleet-summary.json', 2],
    ]);
    expect(json.shops.map((s: { shop: string }) => s.shop)).toEqual([history.mainKey, history.secondKey].sort());
    const main = json.shops.find((s: { shop: string }) => s.shop === history.mainKey);
    const second = json.shops.find((s: { shop: string }) => s.shop === history.secondKey);

    // The main shop: three complete nights with the manifests' numbers, then the run killed before its manifest.
    expect(main.snapshots.map((s: { snapshot_id: string; status: string }) => [s.snapshot_id, s.status])).toEqual([
      ...history.mainComplete.map((id) => [id, 'complete']),
      [history.mainUnfinished, 'unfinished'],
    ]);
    for (const id of history.mainComplete) {
      const point = main.snapshots.find((s: { snapshot_id: string }) => s.snapshot_id === id);
      expect(point).toMatchObject(expectedPoint(manifests.get(`${history.mainKey}/${id}`) as Manifest));
      expect(point.bytes).toBeGreaterThan(0);
    }
    expect(main.snapshots[1].changes.orders).toMatchObject({ removed: 6 });
    expect(main.snapshots[1].resources.orders.check).toBe('drift');
    expect(main.last_run).toMatchObject({ snapshot_id: history.mainUnfinished, status: 'unfinished' });
    expect(main.last_complete).toBe(history.mainComplete[2]);
    expect(main.status).toBe('failing');
    const kinds = (shop: { warnings: Array<{ kind: string; severity: string; snapshot_id: string | null }> }) =>
      shop.warnings.map((w) => [w.kind, w.severity, w.snapshot_id]);
    expect(kinds(main)).toEqual(
      expect.arrayContaining([
        ['unfinished_run', 'failure', history.mainUnfinished],
        ['drift', 'notice', history.mainComplete[1]],
      ]),
    );

    // The second shop: frozen on night 3, which left no snapshot; the fleet summary says so.
    expect(second.last_run).toMatchObject({ status: 'failed', snapshot_id: null });
    expect(second.last_run.error).toMatch(/402 Payment Required/);
    expect(second.last_complete).toBe(history.secondComplete[1]);
    expect(kinds(second)).toEqual([['failed_run', 'failure', null]]);
  });

  it('writes the page with --html, and the terminal summary names the page last', async () => {
    const history = historyOf();
    const page = join(work, `report-${history === local ? 'local' : 's3'}.html`);
    const result = await report(history, ['--html', page]);
    expect(result.code, result.stderr).toBe(0);
    expect(lastLine(result.stdout)).toBe(page);
    expect(result.stdout.split('\n')[0]).toMatch(/^status +shop +last run +last complete +warnings$/);
    const html = await readFile(page, 'utf8');
    // Self-contained: nothing that a browser would fetch (links only to the page's own sections).
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b|\b(src|href)="(?!#)|url\(|@import/);
    expect(html).toContain(`id="shop-${history.mainKey.replaceAll('.', '_')}"`);
  });
});

describe('shopsnap report: scopes, windows and abandoned runs', () => {
  it('a shop folder: that shop alone, without the fleet table; one snapshot or nothing is refused', async () => {
    const page = join(work, 'one-shop.html');
    const result = await report(local, ['--html', page, '--json'], join(local.out, local.mainKey));
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).shops.map((s: { shop: string }) => s.shop)).toEqual([local.mainKey]);
    expect(await readFile(page, 'utf8')).not.toContain('<table class="fleet"');
    const snapshot = await report(local, [], join(local.out, local.mainKey, local.mainComplete[0]));
    expect([snapshot.code, failureLine(snapshot.stderr)]).toEqual([
      2,
      `shopsnap: ${join(local.out, local.mainKey, local.mainComplete[0])} is one snapshot; report takes a destination or a shop folder`,
    ]);
  });

  it('a run too old to resume is abandoned; a shop whose newest complete snapshot is older than --window fails', async () => {
    const out = join(work, 'aged');
    await cp(local.out, out, { recursive: true });
    const now = Date.now();
    // Parts of a run started three days ago; and a shop whose only complete snapshot is forty days old.
    const abandoned = newSnapshotId(new Date(now - 3 * 86_400_000));
    await cp(join(out, local.mainKey, local.mainUnfinished), join(out, local.mainKey, abandoned), { recursive: true });
    const old = newSnapshotId(new Date(now - 40 * 86_400_000));
    await cp(join(out, local.secondKey, local.secondComplete[0]), join(out, 'old-shop', old), { recursive: true });
    const manifest = join(out, 'old-shop', old, 'manifest.json');
    const body = JSON.parse(await readFile(manifest, 'utf8'));
    await writeFile(manifest, JSON.stringify({ ...body, shop: 'old-shop', snapshot_id: old }));

    const result = await runCli(['report', out, '--json'], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    const shops = JSON.parse(result.stdout).shops;
    const main = shops.find((s: { shop: string }) => s.shop === local.mainKey);
    expect(main.snapshots[0]).toMatchObject({ snapshot_id: abandoned, status: 'abandoned' });
    expect(main.warnings).toContainEqual(
      expect.objectContaining({ kind: 'abandoned_run', severity: 'warning', snapshot_id: abandoned }),
    );
    const aged = shops.find((s: { shop: string }) => s.shop === 'old-shop');
    expect(aged).toMatchObject({ status: 'failing', last_complete: old, last_run: { status: 'complete' } });
    expect(aged.warnings).toEqual([
      {
        severity: 'failure',
        kind: 'no_recent_complete',
        snapshot_id: old,
        message: `no complete snapshot in the last 35 days: the newest is ${old}`,
      },
    ]);
    const wider = await runCli(['report', join(out, 'old-shop'), '--json', '--window', '45d'], { cwd: work });
    expect(JSON.parse(wider.stdout).shops[0]).toMatchObject({ shop: 'old-shop', status: 'ok', warnings: [] });
  });
});

const skipBrowser = CHROMIUM === undefined && !BROWSER_REQUIRED;
// Said once in the run's output, besides the skipped test's name.
if (skipBrowser) process.stderr.write(`the report's browser test is ${NO_BROWSER_REASON}\n`);

describe('the report in a real browser (headless Chromium)', () => {
  const title = 'shows the manifests’ numbers for a three-night history, sorts the fleet table, loads nothing';
  (skipBrowser ? it.skip : it)(skipBrowser ? `${title} (${NO_BROWSER_REASON})` : title, async () => {
    const page = join(work, 'browser.html');
    const made = await report(local, ['--html', page]);
    expect(made.code, made.stderr).toBe(0);
    const manifests = await storedManifests(local);
    const screenshot = join(work, 'report.png');
    const shown = await withBrowser(async (browser) => {
      const tab = await browser.newPage();
      const requested: string[] = [];
      tab.on('request', (request) => {
        requested.push(request.url());
      });
      await tab.setViewport({ width: 1200, height: 900 });
      await tab.goto(`file://${page}`, { waitUntil: 'load' });
      const read = await tab.evaluate(() => {
        const text = (element: Element | null) => element?.textContent?.trim() ?? '';
        return [...document.querySelectorAll('section.shop')].map((section) => ({
          shop: section.getAttribute('data-shop'),
          last: Object.fromEntries(
            [...section.querySelectorAll('.last-run dd')].map((dd) => [dd.getAttribute('data-field'), text(dd)]),
          ),
          history: [...section.querySelectorAll('table.history tbody tr')].map((row) => ({
            snapshot: row.getAttribute('data-snapshot'),
            ...Object.fromEntries(
              [...row.querySelectorAll('td[data-field]')].map((td) => [td.getAttribute('data-field'), text(td)]),
            ),
          })),
          warnings: [...section.querySelectorAll('ul.warnings li')].map((li) => text(li)),
          charts: section.querySelectorAll('svg.chart').length,
        }));
      });
      const order = async () =>
        tab.$$eval('table.fleet tbody tr td[data-field="bytes"]', (cells) =>
          cells.map((c) => Number(c.getAttribute('data-value'))),
        );
      await tab.click('table.fleet th:nth-child(6)');
      const descending = await order();
      await tab.click('table.fleet th:nth-child(6)');
      const ascending = await order();
      await tab.screenshot({ path: screenshot, fullPage: true });
      return { read, descending, ascending, requested };
    });
    // The page itself, and nothing else.
    expect(shown.requested).toEqual([`file://${page}`]);
    expect(shown.descending).toEqual([...shown.descending].sort((a, b) => b - a));
    expect(shown.ascending).toEqual([...shown.descending].reverse());

    const plain = (text: string) => text.replaceAll(',', '');
    const main = shown.read.find((section) => section.shop === local.mainKey);
    expect(main?.charts).toBe(4);
    expect(main?.last).toMatchObject({ snapshot_id: local.mainUnfinished, status: 'unfinished' });
    expect(main?.history.map((row) => row.snapshot)).toEqual([
      local.mainUnfinished,
      ...[...local.mainComplete].reverse(),
    ]);
    for (const id of local.mainComplete) {
      const manifest = manifests.get(`${local.mainKey}/${id}`) as Manifest;
      const row = main?.history.find((r) => r.snapshot === id) as Record<string, string>;
      for (const resource of ['products', 'customers', 'orders'] as const) {
        expect(plain(row[resource] ?? ''), `${id} ${resource}`).toBe(String(manifest.resources[resource]?.exported));
      }
      expect(plain(row.requests ?? '')).toBe(
        String(Object.values(manifest.resources).reduce((sum, r) => sum + (r?.requests ?? 0), 0)),
      );
      const changes = manifest.changes?.resources;
      expect(row.changes).toBe(
        changes === undefined
          ? '-'
          : Object.entries(changes)
              .map(([r, c]) => `${r} +${c?.added} -${c?.removed} ~${c?.changed}`)
              .join(', '),
      );
    }
    expect(
      main?.warnings.some((w) => w.startsWith(`${local.mainComplete[1]}: orders: the shop changed during the crawl`)),
    ).toBe(true);
    const second = shown.read.find((section) => section.shop === local.secondKey);
    expect(second?.last).toMatchObject({ status: 'failed', snapshot_id: 'none' });
    expect(second?.last.error).toMatch(/402 Payment Required/);
    // A PNG, whole.
    const png = await readFile(screenshot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
  });
});
