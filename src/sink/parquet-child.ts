import { type ConversionReply, type ConversionRequest, errorForReply, runJob } from './parquet-converter.js';

/** The converter process of childProcessConverter: one job at a time, each on a fresh DuckDB instance. */
const send = (reply: ConversionReply) => process.send?.(reply);

let queue: Promise<void> = Promise.resolve();

async function answer(request: ConversionRequest): Promise<void> {
  try {
    send({ id: request.id, value: await runJob(request.job) });
  } catch (error) {
    send({ id: request.id, error: errorForReply(error) });
  }
}

process.on('message', (request: ConversionRequest) => {
  queue = queue.then(() => answer(request));
});
// The parent closed the channel or went away: nothing is left to answer to.
process.on('disconnect', () => process.exit(0));
// Ctrl-C signals the whole process group; the parent decides what an interruption means and then closes the channel.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
