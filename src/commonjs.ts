import { createRequire } from 'node:module';

/**
 * Loads a CommonJS package (DuckDB's, the AWS SDK's) with require(). `import` of CommonJS first has Node scan the
 * package's files for their export names, which for these two costs more than loading them: on the 2-vCPU VM,
 * @duckdb/node-api took 0.31 s of CPU through import against 0.13 s through require, @aws-sdk/client-s3 0.23 s
 * against 0.13 s (Node 20.20). A backup's converter and a query load DuckDB once each, a run against S3 the SDK.
 */
export const requireCommonJs = createRequire(import.meta.url);
