import { closest } from './closest.js';
import { UsageError } from './usage-error.js';

export type FlagType = 'string' | 'number' | 'boolean' | 'list';
export type FlagValue<T extends FlagType> = T extends 'string'
  ? string
  : T extends 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : string[];

/** One flag of a command, as `--help`, the environment and the checks all see it. */
export interface FlagSpec<T extends FlagType = FlagType> {
  type: T;
  describe: string;
  /** Read from SHOPSNAP_<FLAG_NAME> when the flag is not given (flags > environment > job file). */
  env?: boolean;
  default?: FlagValue<T>;
  /** The allowed values (of each item, for a comma-separated list). */
  choices?: readonly string[];
  /** A --help heading; flags without one come first, under "Options:". */
  group?: string;
  hidden?: boolean;
  /** What is wrong with a value ("must be …"), if anything; reported with the flag or variable it came from. */
  check?(value: FlagValue<T>): string | undefined;
}

export type Flags = Record<string, FlagSpec>;
/** A flag's value: one of its choices (a list of them) when it has choices. */
type ValueOf<S extends FlagSpec> = S extends { choices: readonly (infer C extends string)[] }
  ? S['type'] extends 'list'
    ? C[]
    : C
  : FlagValue<S['type']>;

export type FlagValues<F extends Flags> = {
  -readonly [K in keyof F]: F[K] extends { default: unknown } ? ValueOf<F[K]> : ValueOf<F[K]> | undefined;
};

type Spec<T extends FlagType> = Omit<FlagSpec<T>, 'type'>;

/** Flag constructors: `depth: flag.number({ describe: …, env: true, default: 20 })`. */
export const flag = {
  string: <const S extends Spec<'string'>>(spec: S) => ({ ...spec, type: 'string' as const }),
  number: <const S extends Spec<'number'>>(spec: S) => ({ ...spec, type: 'number' as const }),
  boolean: <const S extends Spec<'boolean'>>(spec: S) => ({ ...spec, type: 'boolean' as const }),
  /** Comma-separated values, e.g. `--formats parquet,raw`; repeating the flag adds to the list. */
  list: <const S extends Spec<'list'>>(spec: S) => ({ ...spec, type: 'list' as const }),
};

/** `tokenFile` → `token-file`, the name on the command line. */
export function optionName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `tokenFile` → `SHOPSNAP_TOKEN_FILE`. */
export function variableName(name: string): string {
  return `SHOPSNAP_${optionName(name).replaceAll('-', '_').toUpperCase()}`;
}

/** Every environment variable the flags read. */
export function flagVariables(flags: Flags): string[] {
  return Object.entries(flags).flatMap(([name, spec]) => (spec.env === true ? [variableName(name)] : []));
}

/**
 * Each flag's value: from the command line (yargs' parse, keyed by option name), else from its variable, else its
 * default; typed, checked and named by where it came from (`--depth …`, `SHOPSNAP_DEPTH …`). Variables of flags not
 * declared here are never read.
 */
export function resolveFlags<F extends Flags>(
  flags: F,
  given: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): FlagValues<F> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(flags)) {
    const raw = given[optionName(name)];
    const variable = spec.env === true ? variableName(name) : undefined;
    const text = variable === undefined ? undefined : env[variable];
    if (raw !== undefined) values[name] = fromCommandLine(spec, `--${optionName(name)}`, raw);
    else if (variable !== undefined && text !== undefined && text !== '') values[name] = fromText(spec, variable, text);
    else values[name] = spec.default;
  }
  return values as FlagValues<F>;
}

function fromCommandLine(spec: FlagSpec, source: string, raw: unknown): unknown {
  if (Array.isArray(raw)) {
    if (spec.type !== 'list') throw new UsageError(`${source} is given more than once`);
    return checked(spec, source, raw.join(','));
  }
  if (spec.type === 'number' && (typeof raw !== 'number' || Number.isNaN(raw))) {
    throw new UsageError(`${source} must be a number`);
  }
  return checked(spec, source, spec.type === 'string' || spec.type === 'list' ? String(raw) : raw);
}

function fromText(spec: FlagSpec, source: string, text: string): unknown {
  if (spec.type === 'number') {
    const number = Number(text.trim());
    if (text.trim() === '' || Number.isNaN(number)) {
      throw new UsageError(`${source} must be a number, not ${JSON.stringify(text)}`);
    }
    return checked(spec, source, number);
  }
  if (spec.type === 'boolean') {
    if (/^(true|1|yes)$/i.test(text.trim())) return checked(spec, source, true);
    if (/^(false|0|no)$/i.test(text.trim())) return checked(spec, source, false);
    throw new UsageError(`${source} must be true or false, not ${JSON.stringify(text)}`);
  }
  return checked(spec, source, text);
}

function checked(spec: FlagSpec, source: string, value: unknown): unknown {
  const typed = spec.type === 'list' ? listItems(spec, source, value as string) : value;
  if (spec.type === 'string' && spec.choices !== undefined) checkChoice(spec.choices, source, value as string);
  const problem = spec.check?.(typed as never);
  if (problem !== undefined) throw new UsageError(`${source} ${problem}`);
  return typed;
}

/** `parquet, raw,,parquet` → ['parquet', 'raw']: the items of a comma-separated list, once each. */
export function commaList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  ];
}

function listItems(spec: FlagSpec, source: string, text: string): string[] {
  const items = commaList(text);
  if (items.length === 0) {
    throw new UsageError(`${source} names nothing${spec.choices ? `; choose from ${spec.choices.join(', ')}` : ''}`);
  }
  if (spec.choices !== undefined) for (const item of items) checkChoice(spec.choices, source, item);
  return items;
}

function checkChoice(choices: readonly string[], source: string, value: string): void {
  if (choices.includes(value)) return;
  const suggestion = closest(value, choices);
  throw new UsageError(
    `${source}: ${JSON.stringify(value)} is not one of ${choices.join(', ')}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
  );
}

/** A `check` for whole numbers within a range. */
export function wholeNumber(min: number, max: number): (value: number) => string | undefined {
  return (value) =>
    Number.isInteger(value) && value >= min && value <= max
      ? undefined
      : `must be a whole number from ${min} to ${max}`;
}
