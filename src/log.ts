import { Writable } from 'node:stream';
import { pino } from 'pino';
import pinoPretty from 'pino-pretty';

/**
 * Credentials can reach a log line only through these keys; pino replaces them before serialisation. Messages are
 * built without secrets in the first place (errors carry URLs without tokens); this is the second line of defence,
 * and the literal-secret scrub below the third.
 */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'headers["x-shopify-access-token"]',
  '*.headers["x-shopify-access-token"]',
  'headers.authorization',
  '*.headers.authorization',
  'credentials',
  '*.credentials',
  'secretAccessKey',
  '*.secretAccessKey',
  'accessKeyId',
  '*.accessKeyId',
];

export type Logger = pino.Logger;

export interface LoggerOptions {
  level?: string;
  /** Pretty lines for people on a terminal, JSON lines otherwise. */
  pretty?: boolean;
  /**
   * Pretty lines without their fields: every message is a sentence of its own (an error's message is appended), and a
   * terminal shows a backup's course line by line. JSON lines always carry the fields.
   */
  terse?: boolean;
  /** Every literal secret known to the process (token, AWS keys); scrubbed from every line. */
  secrets?: readonly string[];
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= 4);
  const sink = options.destination ?? process.stderr;
  const scrubbed = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      let line = chunk.toString();
      for (const secret of secrets) line = line.split(secret).join('[Redacted]');
      sink.write(line);
      done();
    },
  });
  const stream = options.pretty
    ? pinoPretty({
        colorize: true,
        sync: true,
        ignore: 'pid,hostname',
        destination: scrubbed,
        ...(options.terse
          ? {
              hideObject: true,
              messageFormat: (log: Record<string, unknown>, messageKey: string) => {
                const error = log.err as { message?: string } | undefined;
                return error?.message ? `${log[messageKey]}: ${error.message}` : String(log[messageKey]);
              },
            }
          : {}),
      })
    : scrubbed;
  return pino({ level: options.level ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[Redacted]' } }, stream);
}

/**
 * For lines that come in storms (retries during an outage, 429s): per kind, the first is logged at once, then at most
 * one per interval; `log` is told how many were left out since the last line of its kind.
 */
export function stormGuard(
  intervalMs: number,
  now: () => number = () => performance.now(),
): (kind: string, log: (left: number) => void) => void {
  const kinds = new Map<string, { loggedMs: number; left: number }>();
  return (kind, log) => {
    const at = now();
    const seen = kinds.get(kind);
    if (seen !== undefined && at - seen.loggedMs < intervalMs) {
      seen.left++;
      return;
    }
    log(seen?.left ?? 0);
    kinds.set(kind, { loggedMs: at, left: 0 });
  };
}
