import { type ConversionReply, type ConversionRequest, errorForReply, jobRunner } from './parquet-converter.js';

/** The converter process of childProcessConverter: its jobs run as jobRunner runs them, each conversion on a fresh DuckDB. */
const send = (reply: ConversionReply) => process.send?.(reply);
const run = jobRunner();

process.on('message', (request: ConversionRequest) => {
  run(request.job).then(
    (value) => send({ id: request.id, value }),
    (error: unknown) => send({ id: request.id, error: errorForReply(error) }),
  );
});
// The parent closed the channel or went away: nothing is left to answer to.
process.on('disconnect', () => process.exit(0));
// Ctrl-C signals the whole process group; the parent decides what an interruption means and then closes the channel.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
