import { fileURLToPath } from 'node:url';
import type { CliOptions } from './cli.js';

const PRELOAD = fileURLToPath(new URL('./full-disk-preload.mjs', import.meta.url));

/**
 * CLI options for a real shopsnap process whose files matching `paths` (absolute paths) share `capacityBytes` of
 * disk: past that, their writes fail with ENOSPC as on a full file system (see full-disk-preload.mjs).
 */
export function onFullDisk(paths: RegExp, capacityBytes: number): Required<Pick<CliOptions, 'nodeArgs' | 'env'>> {
  return {
    nodeArgs: ['--import', PRELOAD],
    env: { TEST_SHOPSNAP_FULL_DISK: JSON.stringify({ paths: paths.source, capacityBytes }) },
  };
}
