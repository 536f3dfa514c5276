/** The documented exit codes (README "Exit codes"). Only cli/main.ts exits the process. */
export const EXIT = {
  complete: 0,
  failed: 1,
  usage: 2,
  countMismatch: 3,
  /** restore: finished, but some records could not be restored (each in the report with the shop's reason). */
  restoreIncomplete: 3,
  verifyFailed: 4,
  auth: 5,
  shopUnavailable: 6,
  destination: 7,
  suspiciousShrink: 8,
  busy: 9,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
