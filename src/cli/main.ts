#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { closest } from './closest.js';
import { type CliCommand, declareOptions, GLOBAL_FLAGS } from './command.js';
import { allCommands, COMMANDS } from './command-list.js';
import { exitCodesText } from './exit-codes.js';
import { describeFailure } from './failure.js';
import { flagVariables } from './flags.js';
import { endQuietlyWhenOutputCloses, failureJson, globalFlagOn } from './output.js';
import { UsageError } from './usage-error.js';
import { unknownVariableWarnings } from './variables.js';

// The SDK warns on Node 20 about SDK releases of 2027 that will need Node 22; the SDK version shopsnap ships with is
// pinned by its lockfile and supports Node 20, so the warning would only be noise on every S3 run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const argv = hideBin(process.argv);
endQuietlyWhenOutputCloses();

// The global flags take no value, so the first word that is not a flag names the command. Without one, or with one
// no command has, every command is loaded: for --help, and for the usage error's "did you mean".
const named = argv.find((word) => !word.startsWith('-'));
const load = named !== undefined && Object.hasOwn(COMMANDS, named) ? COMMANDS[named] : undefined;
let commands = load === undefined ? await allCommands() : [await load()];

const variablesOf = (loaded: readonly CliCommand[]) => [
  ...flagVariables(GLOBAL_FLAGS),
  ...loaded.flatMap((command) => command.variables),
];
let warnings = unknownVariableWarnings(process.env, variablesOf(commands));
// A variable only another command reads is no mistake (a shell or pod may export every command's): only a variable
// unknown to the command run is worth loading the others for.
if (warnings.length > 0 && commands.length === 1) {
  commands = await allCommands();
  warnings = unknownVariableWarnings(process.env, variablesOf(commands));
}
for (const warning of warnings) process.stderr.write(`shopsnap: warning: ${warning}\n`);

try {
  const cli = yargs(argv)
    .scriptName('shopsnap')
    .locale('en')
    .usage('$0 <command> [options]\n\nBack up and export a Shopify (Admin REST 2022-01) shop.')
    .epilogue(exitCodesText());
  declareOptions(cli, GLOBAL_FLAGS);
  for (const command of commands) cli.command(command.module);
  await cli
    .middleware((parsed) => {
      const name = String(parsed._[0] ?? '');
      const names = Object.keys(COMMANDS);
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
