/**
 * DuckDB's errors about a query, said in one line with where in the SQL they are. DuckDB writes them over several
 * lines: `Binder Error: Referenced column "x" not found…`, a hint, then `LINE 3: <the line, cut to a window>` and a
 * caret under the place.
 */
export class QueryError extends Error {
  override name = 'QueryError';
  /** Usage (exit 2) for what is wrong with the SQL; failed (exit 1) for what went wrong running it (I/O, memory). */
  readonly code: 'ERR_QUERY_SQL' | 'ERR_QUERY_RUN';
  constructor(message: string, sqlFault: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.code = sqlFault ? 'ERR_QUERY_SQL' : 'ERR_QUERY_RUN';
  }
}

/** Kinds of DuckDB errors that are about the SQL itself rather than the data or the machine. */
const SQL_FAULTS = new Set([
  'Parser',
  'Binder',
  'Catalog',
  'Conversion',
  'Invalid Input',
  'Out of Range',
  'Not implemented',
  'Syntax',
  'Constraint',
  'Dependency',
  'Permission',
]);

const NEAR_CHARS = 30;

/** The QueryError for DuckDB's `error`, raised by `sql`. */
export function queryError(error: unknown, sql: string): QueryError {
  // extractStatements wraps the parser's message.
  const text = (error instanceof Error ? error.message : String(error)).replace(/^Failed to extract statements: /, '');
  const [head = '', ...rest] = text.split('\n');
  const kind = /^([A-Za-z ]+) Error: /.exec(head)?.[1];
  const lineAt = rest.findIndex((line) => /^LINE \d+: /.test(line));
  const details = (lineAt === -1 ? rest : rest.slice(0, lineAt)).map((line) => line.trim()).filter(Boolean);
  const said = [head.slice(kind === undefined ? 0 : kind.length + ' Error: '.length), ...details].join(' ');
  const where = lineAt === -1 ? undefined : position(rest[lineAt] as string, rest[lineAt + 1] ?? '', sql);
  const label = kind === undefined ? 'query failed' : `${kind} Error`;
  return new QueryError(
    `query: ${label}${where === undefined ? '' : ` ${where}`}: ${said}`,
    kind !== undefined && SQL_FAULTS.has(kind),
    { cause: error },
  );
}

/** `at line 3, column 7 (near "zz from orders")` from DuckDB's `LINE 3: …` and its caret line. */
function position(lineText: string, caretLine: string, sql: string): string {
  const [, number = '', snippet = ''] = /^LINE (\d+): (.*)$/.exec(lineText) ?? [];
  const caret = caretLine.indexOf('^') - `LINE ${number}: `.length;
  // A long line is shown as a window around the place, `...` on either cut side.
  const fragment = (caret >= 0 ? snippet.slice(caret) : '').replace(/\.\.\.$/, '').trim();
  const near = fragment.length > NEAR_CHARS ? `${fragment.slice(0, NEAR_CHARS)}...` : fragment;
  const line = sql.split('\n')[Number(number) - 1];
  const column = fragment === '' || line === undefined ? -1 : line.indexOf(fragment.slice(0, NEAR_CHARS));
  return [
    `at line ${number}`,
    column === -1 ? '' : `, column ${column + 1}`,
    near === '' ? '' : ` (near ${JSON.stringify(near)})`,
  ].join('');
}
