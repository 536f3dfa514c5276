import { type ConversionReply, type ConversionRequest, errorForReply, jobRunner } from './parquet-converter.js';

/** The converter process of childProcessConverter: its jobs run as jobRunner runs them, conversions on one DuckDB. */
const send = (reply: ConversionReply) => process.send?.(reply);
const runner = jobRunner();
let running = 0;

process.on('message', (request: ConversionRequest) => {
  running++;
  runner
    .run(request.job)
    .then(
      (value) => send({ id: request.id, value }),
      (error: unknown) => send({ id: request.id, error: errorForReply(error) }),
    )
    .finally(() => running--);
});
// The parent closed the channel or went away: nothing is left to answer to. A job still running is abandoned (the
// parent's next run redoes it); otherwise the DuckDB is closed first, which removes what it spilled.
process.on('disconnect', () => {
  if (running > 0) process.exit(0);
  runner.close().finally(() => process.exit(0));
});
// Ctrl-C signals the whole process group; the parent decides what an interruption means and then closes the channel.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
