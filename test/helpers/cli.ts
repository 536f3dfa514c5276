import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The built CLI to run (default: this checkout's; another user runs a copy, see cli-copy.ts). */
  cli?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Flags for node itself, before the script (e.g. a test-only `--import` preload). */
  nodeArgs?: string[];
  /** Run as this user (a root test runner drops to an unprivileged one for permission faults). */
  user?: { uid: number; gid: number };
  /** Close the reading end of stdout at once, as `| head -1` does once it has its line. */
  closeStdout?: boolean;
}

export interface CliRun {
  done: Promise<CliResult>;
  pid: number | undefined;
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the match once stderr has printed text matching `pattern`. */
  waitForStderr(pattern: RegExp): Promise<RegExpExecArray>;
}

/**
 * Runs the built binary exactly as a user would: a separate process, its own environment (nothing of ours leaks in
 * but PATH and HOME), stdout and stderr captured.
 */
export function startCli(args: string[], options: CliOptions = {}): CliRun {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.cli ?? CLI, ...args], {
    cwd: options.cwd,
    ...options.user,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (options.closeStdout) child.stdout.destroy();
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stderr);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    done,
    pid: child.pid,
    kill: (signal) => child.kill(signal),
    waitForStderr: (pattern) => {
      const match = pattern.exec(stderr);
      return match ? Promise.resolve(match) : new Promise((resolve) => waiters.push({ pattern, resolve }));
    },
  };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** The CLI's failure: exactly one `shopsnap: …` line on stderr (besides warnings; the rest is JSON log lines). */
export function failureLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .filter((line) => line.startsWith('shopsnap: ') && !line.startsWith('shopsnap: warning: '));
  expect(lines, stderr).toHaveLength(1);
  return lines[0] as string;
}

export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

/** The JSON log lines of a run's stderr (stderr not a terminal), parsed. */
export function logLines(stderr: string): Array<{ msg: string; level: number; [key: string]: unknown }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** Whether util-linux `script` is here to run the CLI in a pseudo-terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/**
 * Runs the built binary in a pseudo-terminal of `columns` × `rows` (util-linux `script`): stderr and stdout are a TTY,
 * as for a user at a terminal. Resolves with everything the terminal received (feed it to terminalScreen).
 */
export function runCliInTerminal(
  args: string[],
  options: { columns: number; rows: number; env?: Record<string, string>; cwd?: string },
): Promise<{ code: number | null; output: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = `stty cols ${options.columns} rows ${options.rows}; exec ${[process.execPath, CLI, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}
