/** Bad flags, bad arguments, bad job files: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly code = 'ERR_USAGE';
}
