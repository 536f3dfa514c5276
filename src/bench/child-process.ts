import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ResourceName } from '../shopify/resources.js';
import type { RunningShop, ShopOptions } from '../simulator/index.js';
import type { PageShape } from './crawl-bound.js';

export const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./usage-probe.js', import.meta.url));

export interface ProcessUsage {
  /** CPU time of the process and of every process it started, together. */
  cpuSeconds: number;
  /** Peak RSS of the largest of those processes. */
  maxRssMb: number;
  /** How many processes that was. */
  processes: number;
  /** Each of them, by the script it ran (`main.js`: the CLI, `parquet-child.js`: its converter). */
  each: ProcessLine[];
}

interface ProcessLine {
  script: string;
  cpuSeconds: number;
  maxRssMb: number;
  sample?: boolean;
}

export interface MeasuredProcess {
  child: ChildProcess;
  stdout: () => string;
  /** Waits for the exit and returns the CPU time and peak RSS of the child and the processes it started. */
  finished: () => Promise<{ code: number | null; usage: ProcessUsage }>;
  /** The CPU seconds the child itself has spent so far, while it runs (see usage-probe.ts). */
  cpuSecondsNow: () => Promise<number>;
}

let sequence = 0;

/** Runs the CLI in a child process whose CPU time and peak RSS are measured by the process itself. */
export function spawnMeasuredCli(args: string[], env: Record<string, string> = {}): MeasuredProcess {
  return spawnMeasured(CLI, args, env);
}

/** Runs a Node script in a child process whose CPU time and peak RSS are measured by the process itself. */
export function spawnMeasured(script: string, args: string[], env: Record<string, string> = {}): MeasuredProcess {
  const usageFile = join(tmpdir(), `shopsnap-bench-usage-${process.pid}-${sequence++}.json`);
  const child = spawn(process.execPath, ['--import', PROBE, script, ...args], {
    env: { ...process.env, ...env, BENCH_USAGE_FILE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    cpuSecondsNow: async () => {
      const samples = async () => (await readLines(usageFile)).filter((line) => line.sample);
      const before = (await samples()).length;
      child.kill('SIGUSR2');
      for (let waited = 0; waited < 10_000; waited += 20) {
        const after = await samples();
        if (after.length > before) return (after.at(-1) as ProcessLine).cpuSeconds;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`${script} did not report its CPU time`);
    },
    finished: async () => {
      const code = await exited;
      if (code !== 0) throw new Error(`${script} ${args[0]} exited ${code}: ${stderr.slice(-2000)}`);
      const usage = totalUsage((await readLines(usageFile)).filter((line) => !line.sample));
      await rm(usageFile, { force: true });
      return { code, usage };
    },
  };
}

async function readLines(usageFile: string): Promise<ProcessLine[]> {
  const text = await readFile(usageFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ProcessLine);
}

function totalUsage(each: ProcessLine[]): ProcessUsage {
  return {
    cpuSeconds: each.reduce((sum, usage) => sum + usage.cpuSeconds, 0),
    maxRssMb: Math.max(...each.map((usage) => usage.maxRssMb)),
    processes: each.length,
    each,
  };
}

/** Starts `shopsnap sim` in a measured child process and waits for it to print its URL and token. */
export async function startSimulatorProcess(
  args: string[],
): Promise<{ url: string; token: string; cpuSecondsNow: () => Promise<number>; stop: () => Promise<ProcessUsage> }> {
  const sim = spawnMeasuredCli(['sim', '--port', '0', ...args]);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(sim.stdout())?.[0];
    const token = /shpat_[A-Za-z0-9_]+/.exec(sim.stdout())?.[0];
    if (url !== undefined && token !== undefined) {
      return {
        url,
        token,
        cpuSecondsNow: sim.cpuSecondsNow,
        stop: async () => {
          sim.child.kill('SIGTERM');
          return (await sim.finished()).usage;
        },
      };
    }
    if (Date.now() > deadline || sim.child.exitCode !== null) throw new Error('the simulator did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A simulated shop in its own process (shop-process.ts), and what it saw, counted on its side, once stopped. */
export interface ShopProcess {
  url: string;
  token: string;
  counts: Record<ResourceName, number>;
  pages: Record<ResourceName, PageShape[]>;
  stop(): Promise<ReturnType<RunningShop['stats']>>;
}

export async function startShopProcess(options: ShopOptions): Promise<ShopProcess> {
  const script = fileURLToPath(new URL('./shop-process.js', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error('simulated shop exited before printing its address');
  return {
    ...(JSON.parse(first.value) as Omit<ShopProcess, 'stop'>),
    async stop() {
      child.stdin?.end();
      const last = await lines.next();
      if (last.done) throw new Error('simulated shop exited without its statistics');
      return (JSON.parse(last.value) as { stats: ReturnType<RunningShop['stats']> }).stats;
    },
  };
}
