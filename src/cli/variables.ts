import { closest } from './closest.js';

const PREFIX = 'SHOPSNAP_';

/**
 * One warning for each SHOPSNAP_* variable that no command reads (a misspelling, or a setting shopsnap does not
 * have), with the nearest known name. Such a variable is otherwise ignored; one that only another command reads is
 * not mentioned, so a shell or pod may export every variable its commands use.
 */
export function unknownVariableWarnings(
  env: Readonly<Record<string, string | undefined>>,
  known: Iterable<string>,
): string[] {
  const names = new Set(known);
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith(PREFIX) && !names.has(name))
    .sort()
    .map((name) => {
      const suggestion = closest(
        name.slice(PREFIX.length),
        [...names].map((known) => known.slice(PREFIX.length)),
      );
      return `${name} is not a shopsnap variable and is ignored${suggestion ? `; did you mean ${PREFIX}${suggestion}?` : ''}`;
    });
}
