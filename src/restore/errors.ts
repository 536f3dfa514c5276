/**
 * A restore's own failures, with a stable code: `ERR_USAGE` (what was named cannot be restored that way: exit 2),
 * `ERR_RESTORE_SOURCE` (the snapshot cannot be read whole), `ERR_RESTORE_STATE` (the journal or id map of an earlier
 * run cannot be read or belongs to another restore). Shop and storage failures keep their own classes.
 */
export class RestoreError extends Error {
  override name = 'RestoreError';
  constructor(
    readonly code: 'ERR_USAGE' | 'ERR_RESTORE_SOURCE' | 'ERR_RESTORE_STATE',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
