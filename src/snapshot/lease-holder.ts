import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** Which process holds a lease, told precisely enough that a run on the same machine can see whether it still runs. */
export interface LeaseHolder {
  host: string;
  pid: number;
  /**
   * The process table `pid` belongs to: the kernel's boot id and the pid namespace (Linux). Containers sharing a host
   * name but not their pids (`--uts=host`), or two machines of the same name, differ here; absent off Linux.
   */
  pid_namespace?: string;
  /** The holder's start, in clock ticks after boot (Linux): a reused pid has another. */
  pid_started?: string;
}

/** This process as a lease names it. */
export function thisProcess(): LeaseHolder {
  const pidNamespace = linuxPidNamespace();
  const started = processStat(process.pid)?.started;
  return {
    host: hostname(),
    pid: process.pid,
    ...(pidNamespace === undefined ? {} : { pid_namespace: pidNamespace }),
    ...(started === undefined ? {} : { pid_started: started }),
  };
}

/**
 * True only when the holder provably no longer runs: it lives in this machine's process table (same host name and
 * pid namespace) and its pid is gone (ESRCH), a zombie, or taken by a process that started at another time (a reused
 * pid). Anything uncertain — another host, a pid that exists but cannot be inspected (another user's process under
 * `hidepid`, or off Linux where a reused pid looks alive) — counts as alive, so the lease is never taken from a live run;
 * the holder's unrenewed lease still expires.
 */
export function holderGone(holder: LeaseHolder, self: LeaseHolder = thisProcess()): boolean {
  if (holder.host !== self.host || holder.pid_namespace !== self.pid_namespace) return false;
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists, as another user's.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  const stat = processStat(holder.pid);
  if (stat === undefined) return false;
  return stat.state === 'Z' || (holder.pid_started !== undefined && stat.started !== holder.pid_started);
}

function linuxPidNamespace(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${boot}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

/** State and start time from /proc/<pid>/stat; the command name in parentheses may hold spaces and parentheses. */
function processStat(pid: number): { state: string; started: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the name: state is field 3 of stat(5), starttime field 22.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const started = fields[19];
  return state === undefined || started === undefined ? undefined : { state, started };
}
