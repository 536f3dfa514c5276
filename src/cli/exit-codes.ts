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

/** Each code in a few words, for --help (README "Exit codes" says it in full). */
const MEANINGS: Readonly<Record<keyof typeof EXIT, string>> = {
  complete: 'complete: written and every check passed',
  failed: 'failed: nothing marked complete',
  usage: 'usage: bad flag, argument, shop, token source or job file',
  countMismatch: 'written, but a count check says mismatch',
  restoreIncomplete: 'restore: some records could not be restored',
  verifyFailed: 'verify found damage or no complete snapshot',
  auth: 'the shop refused the token (401) or a scope (403)',
  shopUnavailable: 'the shop is frozen (402) or locked (423)',
  destination: 'the destination or staging area failed',
  suspiciousShrink: 'written, but a resource shrank suspiciously',
  busy: 'another run holds the shop’s lease',
  interrupted: 'interrupted; no manifest written',
};

/** The exit-code table as --help prints it: one line per code, the meanings that share it together. */
export function exitCodesText(): string {
  const byCode = new Map<number, string[]>();
  for (const [name, code] of Object.entries(EXIT)) {
    byCode.set(code, [...(byCode.get(code) ?? []), MEANINGS[name as keyof typeof EXIT]]);
  }
  const rows = [...byCode].map(([code, meanings]) => `  ${String(code).padEnd(4)} ${meanings.join('; ')}`);
  return ['Exit codes:', ...rows].join('\n');
}
