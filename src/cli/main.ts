#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { closest } from './closest.js';
import { declareOptions, GLOBAL_FLAGS } from './command.js';
import { backupCommand } from './commands/backup.js';
import { checkCommand } from './commands/check.js';
import { demoCommand } from './commands/demo.js';
import { diffCommand } from './commands/diff.js';
import { pruneCommand } from './commands/prune.js';
import { queryCommand } from './commands/query.js';
import { reportCommand } from './commands/report.js';
import { restoreCommand } from './commands/restore.js';
import { runCommand } from './commands/run.js';
import { schemaCommand } from './commands/schema.js';
import { simCommand } from './commands/sim.js';
import { snapshotsCommand } from './commands/snapshots.js';
import { verifyCommand } from './commands/verify.js';
import { exitCodesText } from './exit-codes.js';
import { describeFailure } from './failure.js';
import { flagVariables } from './flags.js';
import { endQuietlyWhenOutputCloses, failureJson, globalFlagOn } from './output.js';
import { UsageError } from './usage-error.js';
import { unknownVariableWarnings } from './variables.js';

// The SDK warns on Node 20 about SDK releases of 2027 that will need Node 22; the SDK version shopsnap ships with is
// pinned by its lockfile and supports Node 20, so the warning would only be noise on every S3 run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Every command, each declared in one place (see command.ts). */
const COMMANDS = [
  checkCommand,
  backupCommand,
  runCommand,
  verifyCommand,
  diffCommand,
  snapshotsCommand,
  queryCommand,
  reportCommand,
  pruneCommand,
  restoreCommand,
  schemaCommand,
  demoCommand,
  simCommand,
];

const argv = hideBin(process.argv);
endQuietlyWhenOutputCloses();

const variables = [...flagVariables(GLOBAL_FLAGS), ...COMMANDS.flatMap((command) => command.variables)];
for (const warning of unknownVariableWarnings(process.env, variables)) {
  process.stderr.write(`shopsnap: warning: ${warning}\n`);
}

try {
  const cli = yargs(argv)
    .scriptName('shopsnap')
    .locale('en')
    .usage('$0 <command> [options]\n\nBack up and export a Shopify (Admin REST 2022-01) shop.')
    .epilogue(exitCodesText());
  declareOptions(cli, GLOBAL_FLAGS);
  for (const command of COMMANDS) cli.command(command.module);
  await cli
    .middleware((parsed) => {
      const name = String(parsed._[0] ?? '');
      const names = COMMANDS.map((command) => command.name);
      if (name !== '' && !names.includes(name)) {
        const suggestion = closest(name, names);
        throw new UsageError(
          `unknown command ${JSON.stringify(name)}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
        );
      }
    }, true)
    .demandCommand(1, 'Name a command; see shopsnap --help.')
    .strict()
    .fail((message, error) => {
      throw error ?? new UsageError(message);
    })
    .help()
    .alias('help', 'h')
    .version()
    .wrap(Math.min(120, process.stdout.columns ?? 100))
    .parseAsync();
} catch (error) {
  const failure = describeFailure(error);
  process.exitCode = failure.exitCode;
  // The stack first: the one line that says what failed stays the last thing on stderr.
  if (globalFlagOn('verbose', argv, process.env) && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  process.stderr.write(`shopsnap: ${failure.message}\n`);
  // A query's SQL error is no misuse of the command line: its one line says all.
  if (failure.exitCode === 2 && (error as { code?: unknown })?.code !== 'ERR_QUERY_SQL') {
    process.stderr.write('Run shopsnap --help for usage.\n');
  }
  if (globalFlagOn('json', argv, process.env)) process.stdout.write(failureJson(failure.exitCode, failure.message));
}
