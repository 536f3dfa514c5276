import { chmod, copyFile, link, mkdir, readdir, readFile, readlink, stat, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A copy of the built CLI under `dir` that any user can run: `package.json`, `dist/` and the installed runtime
 * packages (package-lock.json's entries that are not dev-only). A test that runs the CLI as another user (a root
 * runner dropping to `nobody`) starts it from here, so it does not depend on whether that user can read the
 * checkout (CI clones into a 0700 folder or under /root). Returns the path of the copy's `dist/cli/main.js`.
 */
export async function cliCopyFor(dir: string): Promise<string> {
  const lock = JSON.parse(await readFile(join(CHECKOUT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const packages = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.dev !== true)
    .map(([path]) => path);
  for (const path of ['package.json', 'dist', ...packages]) {
    // Optional packages for other platforms are in the lock but not installed.
    if (!(await stat(join(CHECKOUT, path)).catch(() => undefined))) continue;
    await mkdirReadable(dir, dirname(path));
    await copyTree(path, dir);
  }
  return join(dir, 'dist', 'cli', 'main.js');
}

/**
 * Copies `path` of the checkout to the same path under `dir`, readable by everyone, leaving out `node_modules`
 * folders (a package's own packages are lock entries of their own). Files are hard links when they are already
 * readable by everyone and on the same file system (free, even for DuckDB's native binary), copies otherwise.
 */
async function copyTree(path: string, dir: string): Promise<void> {
  const from = join(CHECKOUT, path);
  const to = join(dir, path);
  const info = await stat(from);
  if (!info.isDirectory()) {
    await copyFileReadable(from, to, info.mode);
    return;
  }
  await mkdir(to, { recursive: true });
  await chmod(to, 0o755);
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const child = join(path, entry.name);
    if (entry.isSymbolicLink()) await symlink(await readlink(join(CHECKOUT, child)), join(dir, child));
    else await copyTree(child, dir);
  }
}

/** `dir` and each folder of `path` under it, open to everyone whatever the umask. */
async function mkdirReadable(dir: string, path: string): Promise<void> {
  let at = dir;
  for (const name of ['', ...path.split('/').filter((part) => part !== '' && part !== '.')]) {
    at = join(at, name);
    await mkdir(at, { recursive: true });
    await chmod(at, 0o755);
  }
}

async function copyFileReadable(from: string, to: string, mode: number): Promise<void> {
  const readable = mode | 0o444 | (mode & 0o100 ? 0o111 : 0);
  if ((mode & 0o7777) === (readable & 0o7777)) {
    const linked = await link(from, to).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EXDEV' || error.code === 'EPERM') return false;
        throw error;
      },
    );
    if (linked) return;
  }
  await copyFile(from, to);
  await chmod(to, readable & 0o7777);
}
