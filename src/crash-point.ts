/**
 * Named places where the fault suites kill the process with SIGKILL, no cleanup and no finally, to prove that a crash
 * anywhere leaves either no manifest or a correct one and that the next run resumes (test/reliability), and that a
 * restore run again after a crash creates nothing twice (test/cli-e2e/restore-crash.test.ts).
 */
export type CrashPoint =
  | 'after-page'
  | 'mid-file'
  | 'before-rename'
  | 'mid-upload'
  | 'between-uploads'
  | 'after-checkpoint'
  | 'before-manifest'
  | 'after-manifest'
  | 'mid-prune'
  // A restore: after a write's intent is journaled and before it is sent; after its answer and before the journal
  // has it; when a write goes out while others are in flight; between the reads of its verification.
  | 'restore-before-write'
  | 'restore-after-write'
  | 'restore-mid-batch'
  | 'restore-verify';

const wanted = parse(process.env.TEST_SHOPSNAP_CRASH_AT);
let passes = 0;

/** Inert unless TEST_SHOPSNAP_CRASH_AT is `<point>` or `<point>:<n>` (the n-th time the point is passed, default 1st). */
export function crashPoint(point: CrashPoint): void {
  if (wanted === undefined || wanted.point !== point) return;
  passes++;
  if (passes === wanted.pass) process.kill(process.pid, 'SIGKILL');
}

function parse(value: string | undefined): { point: string; pass: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const [point = '', pass = '1'] = value.split(':');
  return { point, pass: Number(pass) };
}
