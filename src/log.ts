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
    ? pinoPretty({ colorize: true, sync: true, ignore: 'pid,hostname', destination: scrubbed })
    : scrubbed;
  return pino({ level: options.level ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[Redacted]' } }, stream);
}
