import yargs from 'yargs';
import { GLOBAL_FLAGS } from './command.js';
import { resolveFlags } from './flags.js';

/**
 * Whether a global flag is on (`--json`, `--no-json`, `--json=false`, else SHOPSNAP_JSON), read on its own so that a
 * command line yargs refused still gets its failure as JSON (or with its stack trace).
 */
export function globalFlagOn(
  name: keyof typeof GLOBAL_FLAGS,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const given = yargs([...args])
    .help(false)
    .version(false)
    .exitProcess(false)
    .option(name, { type: 'boolean' })
    .parseSync();
  try {
    return resolveFlags({ [name]: GLOBAL_FLAGS[name] }, given, env)[name] === true;
  } catch {
    return false;
  }
}

/** A failure as `--json` prints it on stdout (the `shopsnap: …` line still goes to stderr). */
export function failureJson(exitCode: number, message: string): string {
  return `${JSON.stringify({ status: 'failed', exit_code: exitCode, error: message })}\n`;
}

/**
 * A reader that stops reading (`shopsnap schema --json | head -1`) ends the process quietly with the exit code set so
 * far, instead of an EPIPE stack trace: what was not read was not wanted, and nothing else is left to tell.
 */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}
