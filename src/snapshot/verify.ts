import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { countRows } from '../sink/count-rows.js';
import { readObjectText, type Storage } from '../storage/storage.js';
import { MANIFEST_NAME, type Manifest, type ManifestFile, parseManifest } from './manifest.js';

export interface VerifyReport {
  location: string;
  checked: number;
  missing: string[];
  extra: string[];
  differing: { path: string; reason: string }[];
}

/** A snapshot that cannot be verified: nothing there, no manifest, or one that cannot be read (exit 4). */
export class VerifyError extends Error {
  override name = 'VerifyError';
  readonly code = 'ERR_VERIFY';
}

export function verifyPassed(report: VerifyReport): boolean {
  return report.missing.length === 0 && report.extra.length === 0 && report.differing.length === 0;
}

/**
 * Re-reads every file of the snapshot under `prefix` (re-hash and re-count, never trusting the writer's counters) and
 * compares it with the manifest (read from storage unless given): rclone check's categories missing / extra / differing.
 */
export async function verifySnapshot(storage: Storage, prefix: string, given?: Manifest): Promise<VerifyReport> {
  const manifestKey = `${prefix}/${MANIFEST_NAME}`;
  const manifest =
    given ?? parseManifest(await readObjectText(storage, manifestKey), `${storage.location}/${manifestKey}`);
  const report: VerifyReport = {
    location: `${storage.location}/${prefix}`,
    checked: 0,
    missing: [],
    extra: [],
    differing: [],
  };
  const listed = new Map<string, number>();
  for await (const object of storage.list(`${prefix}/`)) listed.set(object.key.slice(prefix.length + 1), object.bytes);
  const expected = new Set(manifest.files.map((file) => file.path));
  for (const path of listed.keys()) {
    if (path !== MANIFEST_NAME && !expected.has(path)) report.extra.push(path);
  }
  const scratch = await mkdtemp(join(tmpdir(), 'shopsnap-verify-'));
  try {
    for (const file of manifest.files) {
      report.checked++;
      const bytes = listed.get(file.path);
      if (bytes === undefined) {
        report.missing.push(file.path);
        continue;
      }
      const reason = await checkFile(storage, `${prefix}/${file.path}`, file, bytes, scratch);
      if (reason !== undefined) report.differing.push({ path: file.path, reason });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return report;
}

async function checkFile(
  storage: Storage,
  key: string,
  file: ManifestFile,
  listedBytes: number,
  scratch: string,
): Promise<string | undefined> {
  if (listedBytes !== file.bytes) return `size ${listedBytes} bytes, manifest says ${file.bytes}`;
  const local = join(scratch, 'file');
  const hash = createHash('sha256');
  await pipeline(
    await storage.get(key),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        hash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(local),
  );
  const sha256 = hash.digest('hex');
  if (sha256 !== file.sha256) return `sha256 ${sha256}, manifest says ${file.sha256}`;
  try {
    const rows = await countRows(local, file.format);
    return rows === file.rows ? undefined : `${rows} rows, manifest says ${file.rows}`;
  } catch (error) {
    return `unreadable ${file.format} file: ${(error as Error).message}`;
  } finally {
    await rm(local, { force: true });
  }
}
