import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { jsonFromChild } from './child-json.js';

const SCRIPT = fileURLToPath(new URL('./duckdb-query.mjs', import.meta.url));

export type SqlRow = Record<string, string | number | boolean | null>;

/** Runs `sql` with DuckDB in a separate process whose working folder is `cwd`, as a user in that folder would. */
export function queryIn(cwd: string, sql: string): Promise<SqlRow[]> {
  const child = spawn(process.execPath, [SCRIPT], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(sql);
  return jsonFromChild<SqlRow[]>(child, `DuckDB running\n${sql}\n`);
}
