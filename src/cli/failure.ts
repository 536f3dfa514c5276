import { StorageError } from '../storage/storage.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** File-system failures of the destination or its staging area (errors that carry a path). */
const DESTINATION_ERRNOS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST']);
const USAGE_CODES = new Set([
  'ERR_USAGE',
  'ERR_SHOP_ADDRESS',
  'ERR_JOB_FILE',
  'ERR_TOKEN_SOURCE',
  'ERR_SIM_OPTIONS',
  'ERR_QUERY_SQL',
]);

/**
 * Turns any error into the one-line message and exit code the CLI reports. Errors are classified by their stable
 * `code` (and an HTTP `status` where the shop answered), looking through `cause` chains.
 */
export function describeFailure(error: unknown): { message: string; exitCode: ExitCode } {
  const message = error instanceof Error ? error.message : String(error);
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    const status = (current as { status?: unknown }).status;
    if (current.name === 'AbortError' || code === 'ABORT_ERR' || code === 'ERR_INTERRUPTED') {
      return { message: 'interrupted; no snapshot was marked complete', exitCode: EXIT.interrupted };
    }
    if (typeof code === 'string' && USAGE_CODES.has(code)) return { message, exitCode: EXIT.usage };
    if (code === 'ERR_LEASE_HELD') return { message, exitCode: EXIT.busy };
    if (code === 'ERR_VERIFY') return { message, exitCode: EXIT.verifyFailed };
    if (status === 401 || status === 403) return { message, exitCode: EXIT.auth };
    if (status === 402 || status === 423) return { message, exitCode: EXIT.shopUnavailable };
    if (typeof code === 'string' && DESTINATION_ERRNOS.has(code) && 'path' in current) {
      return { message, exitCode: EXIT.destination };
    }
    if (current instanceof StorageError && current.code !== 'ERR_STORAGE_INTEGRITY') {
      return { message, exitCode: EXIT.destination };
    }
  }
  return { message, exitCode: EXIT.failed };
}
