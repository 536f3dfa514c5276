import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';
import { runStorageContract } from './storage.contract.js';

let base: string;
let roots = 0;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'shopsnap-local-storage-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

runStorageContract('LocalDirStorage', async () => {
  roots += 1;
  return new LocalDirStorage(join(base, `root-${roots}`));
});
