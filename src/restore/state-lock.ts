import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RestoreError } from './errors.js';

const LOCK_NAME = 'lock.json';

/**
 * One restore at a time per snapshot and target: two runs appending to one journal would each take the other's
 * intents for their own. The lock names its process; a lock left by a process of this machine that is gone (killed,
 * crashed) is taken over at once.
 */
export async function holdStateLock(folder: string): Promise<{ release(): Promise<void> }> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, LOCK_NAME);
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(mine);
      await handle.sync();
      await handle.close();
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && (holder.host !== hostname() || alive(holder.pid))) {
      const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
      throw new RestoreError(
        'ERR_RESTORE_STATE',
        `another restore (${where}, since ${holder.since}) is writing ${folder}; wait for it, or remove ${path} if it is gone`,
      );
    }
    await rm(path, { force: true });
  }
  throw new RestoreError('ERR_RESTORE_STATE', `cannot take the lock ${path}: another restore keeps taking it`);
}

async function readHolder(path: string): Promise<{ pid: number; host: string; since: string } | undefined> {
  try {
    const holder = JSON.parse(await readFile(path, 'utf8'));
    return typeof holder?.pid === 'number' && typeof holder?.host === 'string' ? holder : undefined;
  } catch {
    // A lock written halfway by a killed process holds nothing.
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
