// @ts-check
/**
 * Runs the SQL on stdin with DuckDB as a user's shell would: a fresh process whose working folder is the user's, so
 * relative paths (`snapshots/…`, `./snapshots/…`) resolve as they do for them. Prints the rows as JSON (DuckDB's
 * JSON-safe values: BIGINT and DECIMAL as exact strings).
 */
import { DuckDBInstance } from '@duckdb/node-api';

let sql = '';
for await (const chunk of process.stdin) sql += chunk;
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const result = await connection.runAndReadAll(sql);
process.stdout.write(JSON.stringify(result.getRowObjectsJson()));
connection.closeSync();
instance.closeSync();
