import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Browser, launch } from 'puppeteer-core';

/**
 * Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it where missing), found on PATH. `npm test` on a
 * machine with only Node skips the browser tests, saying why; with SHOPSNAP_REQUIRE_BROWSER=1 (CI) a missing browser
 * fails them instead.
 */
export const CHROMIUM: string | undefined = (process.env.PATH ?? '')
  .split(delimiter)
  .flatMap((dir) => ['chromium', 'chromium-browser'].map((name) => join(dir, name)))
  .find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

export const BROWSER_REQUIRED = process.env.SHOPSNAP_REQUIRE_BROWSER === '1';

export const NO_BROWSER_REASON =
  'skipped: no chromium on PATH (apt-get install chromium; .ci/run installs it and sets SHOPSNAP_REQUIRE_BROWSER=1)';

/** Flags that keep a headless Chromium to itself: no GPU, no sandbox (root in CI), nothing fetched on its own. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Runs `work` with a fresh headless Chromium (its own profile folder, talked to over a pipe), closed afterwards. */
export async function withBrowser<T>(work: (browser: Browser) => Promise<T>): Promise<T> {
  if (CHROMIUM === undefined) throw new Error('SHOPSNAP_REQUIRE_BROWSER=1, but there is no chromium on PATH');
  const profile = await mkdtemp(join(tmpdir(), 'shopsnap-chromium-'));
  const browser = await launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    args: [...FLAGS, `--user-data-dir=${profile}`],
  });
  try {
    return await work(browser);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}
