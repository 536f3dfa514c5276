import type { Argv, CommandModule } from 'yargs';
import { closest } from './closest.js';
import { exitCodesText } from './exit-codes.js';
import { type Flags, type FlagValues, flag, flagVariables, optionName, resolveFlags, variableName } from './flags.js';
import { UsageError } from './usage-error.js';

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  json: flag.boolean({ describe: 'Print results, and failures, as JSON on stdout', env: true, default: false }),
  verbose: flag.boolean({ describe: 'Debug logs, and stack traces on errors', env: true, default: false }),
};

/**
 * A command declared in one place: its positionals, flags (with their environment variables), examples and what it
 * runs. `defineCommand` gives it the rest:
 * - a flag with `env: true` is read from SHOPSNAP_<FLAG> when not given on the command line; the command reads no
 *   other variable, so one that another command uses (SHOPSNAP_TOKEN for `verify`) changes nothing;
 * - `--help` names each flag's variable, lists ungrouped flags first, prints examples whole and the exit codes;
 * - values are typed and checked, naming the flag or variable they came from; an unknown flag, an extra or a missing
 *   argument is a usage error (exit 2) that says which, with a "did you mean";
 * - main.ts learns the variables it reads, to warn about SHOPSNAP_* names no command knows.
 *
 * A new command: `export const fooCommand = defineCommand({ name: 'foo', describe, positionals, flags, run })`, its
 * flags built with `flag.*` (spreading shared sets such as SHOP_FLAGS or S3_READ_FLAGS), then added to COMMANDS in
 * main.ts. Nothing else to wire.
 */
export interface CommandSpec<F extends Flags, P extends string, O extends string = never> {
  name: string;
  describe: string;
  /** Required arguments in order, each with what it is. */
  positionals?: Readonly<Record<P, string>>;
  /** Arguments that may follow the required ones, in order, each with what it is. */
  optionalPositionals?: Readonly<Record<O, string>>;
  flags: F;
  /** SHOPSNAP_* variables the command reads itself (not through a flag), with what they mean. */
  variables?: Readonly<Record<string, string>>;
  /** [what it does, the command line]. */
  examples?: readonly (readonly [string, string])[];
  run(args: CommandArgs<F, P, O>): Promise<void> | void;
}

export type CommandArgs<F extends Flags, P extends string, O extends string = never> = FlagValues<
  F & typeof GLOBAL_FLAGS
> &
  Record<P, string> &
  Partial<Record<O, string>>;

export interface CliCommand {
  name: string;
  /** Every SHOPSNAP_* variable the command reads. */
  variables: readonly string[];
  module: CommandModule;
}

export function defineCommand<const F extends Flags, const P extends string = never, const O extends string = never>(
  spec: CommandSpec<F, P, O>,
): CliCommand {
  const positionals = Object.entries<string>(spec.positionals ?? ({} as Record<P, string>));
  const optional = Object.entries<string>(spec.optionalPositionals ?? ({} as Record<O, string>));
  const shown = [...positionals.map(([name]) => `<${name}>`), ...optional.map(([name]) => `[${name}]`)];
  const usage = [`$0 ${spec.name}`, ...shown].join(' ');
  const flags: Flags = { ...GLOBAL_FLAGS, ...spec.flags };
  return {
    name: spec.name,
    variables: [...flagVariables(flags), ...Object.keys(spec.variables ?? {})],
    module: {
      command: [spec.name, ...shown].join(' '),
      describe: spec.describe,
      builder: (yargs: Argv) => {
        for (const [name, describe] of [...positionals, ...optional]) {
          yargs.positional(name, { type: 'string', describe });
        }
        const ungrouped = Object.keys(spec.flags).filter((name) => spec.flags[name]?.group === undefined);
        // "Options:" created now comes before the named groups; the global flags and --help join it at its end.
        if (ungrouped.length > 0) yargs.group(ungrouped.map(optionName), 'Options:');
        declareOptions(yargs, spec.flags);
        const epilogue = [examplesText(spec.examples ?? []), variablesText(spec.variables ?? {}), exitCodesText()];
        yargs.epilogue(epilogue.filter(Boolean).join('\n\n'));
        return yargs
          .middleware((argv) => {
            rejectUnexpected(argv, flags, [...positionals, ...optional], usage);
            Object.assign(argv, resolveFlags(flags, argv, process.env));
          }, true)
          .fail((message, error) => {
            throw error ?? new UsageError(missingArgument(message, positionals, usage) ?? message);
          });
      },
      handler: (argv) => spec.run(argv as unknown as CommandArgs<F, P, O>),
    },
  };
}

/** Declares flags to yargs for parsing and --help; their values come from resolveFlags, so no defaults here. */
export function declareOptions(yargs: Argv, flags: Flags): void {
  for (const [name, spec] of Object.entries(flags)) {
    const shownDefault =
      spec.default === undefined || spec.default === false
        ? undefined
        : Array.isArray(spec.default)
          ? spec.default.join(',')
          : String(spec.default);
    yargs.option(optionName(name), {
      type: spec.type === 'list' ? 'string' : spec.type,
      describe: spec.env === true ? `${spec.describe} [env: ${variableName(name)}]` : spec.describe,
      ...(spec.group === undefined ? {} : { group: spec.group }),
      ...(spec.hidden === true ? { hidden: true } : {}),
      ...(spec.choices === undefined ? {} : { choices: [...spec.choices] }),
      ...(shownDefault === undefined ? {} : { defaultDescription: shownDefault }),
    });
  }
}

function rejectUnexpected(
  argv: Record<string, unknown> & { _: (string | number)[] },
  flags: Flags,
  positionals: [string, string][],
  usage: string,
): void {
  const names = Object.keys(flags).map(optionName);
  const known = new Set(['_', '$0', 'help', 'h', 'version', ...names, ...Object.keys(flags)]);
  for (const [name] of positionals) known.add(name);
  const unknown = [...new Set(Object.keys(argv).filter((key) => !known.has(key)))]
    .map(optionName)
    .filter((key, index, all) => all.indexOf(key) === index)
    .map((key) => (key.length === 1 ? `-${key}` : `--${key}`));
  if (unknown.length > 0) {
    const visible = Object.entries(flags).flatMap(([name, spec]) => (spec.hidden ? [] : [`--${optionName(name)}`]));
    const suggestion = unknown.length === 1 ? closest(unknown[0] as string, visible) : undefined;
    throw new UsageError(
      `unknown flag${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
    );
  }
  const extra = argv._.slice(1);
  if (extra.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(String(extra[0]))}; usage: ${displayed(usage)}`);
  }
}

/** yargs' "Not enough non-option arguments: got 0, need at least 1", said with the argument's name. */
function missingArgument(message: string, positionals: [string, string][], usage: string): string | undefined {
  const got = /^Not enough non-option arguments: got (\d+)/.exec(message)?.[1];
  const missing = got === undefined ? undefined : positionals[Number(got)];
  return missing && `missing <${missing[0]}> (${missing[1]}); usage: ${displayed(usage)}`;
}

function displayed(usage: string): string {
  return usage.replace('$0', 'shopsnap');
}

/** Examples as their own lines (a description, then the command indented): columns would break inside long names. */
function examplesText(examples: readonly (readonly [string, string])[]): string {
  if (examples.length === 0) return '';
  return ['Examples:', ...examples.flatMap(([what, line]) => [`  ${what}:`, `    ${line}`])].join('\n');
}

function variablesText(variables: Readonly<Record<string, string>>): string {
  const entries = Object.entries(variables);
  if (entries.length === 0) return '';
  return ['Environment:', ...entries.map(([name, meaning]) => `  ${name}  ${meaning}`)].join('\n');
}
