import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Every file under `dir`, recursively, as absolute paths; none when `dir` is missing or not a directory. */
export async function filesUnder(dir: string): Promise<string[]> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
