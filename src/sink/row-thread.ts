import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RecordRows, RecordRowsOptions, RowParts } from './record-rows.js';
import { errorFromData, type RowReply, type RowRequest } from './row-thread-protocol.js';

const WORKER = fileURLToPath(new URL('./row-thread-worker.js', import.meta.url));

/** Records go to the thread in batches of about this many bytes, not a message each (a clone and a wake-up apiece). */
const BATCH_BYTES = 256 * 1024;
/** Batches sent and not yet done before add() waits: bounds the memory a slower thread can make the crawl hold. */
const BATCHES_IN_FLIGHT = 4;

/** A request as its RecordRows makes it: the thread adds the request's id and the RecordRows' handle. */
type Ask = AskOf<RowRequest>;
type AskOf<R> = R extends unknown ? Omit<R, 'id' | 'handle'> : never;

/**
 * One worker thread that flattens, encodes and writes the rows of every RecordRows opened on it (row-thread-worker.ts),
 * so that the thread running the crawl only scans pages, archives the raw records and hands their bytes over: parsing,
 * flattening and encoding are about a third of the crawl process's CPU (README, Snapshot throughput). Started on first
 * use; it keeps the process alive only while a request is unanswered. Only runnable from the built JavaScript.
 */
export class RowThread {
  readonly #script: string;
  #worker: Worker | undefined;
  #nextId = 0;
  #nextHandle = 0;
  readonly #pending = new Map<number, { resolve: (reply: RowReply) => void; reject: (error: Error) => void }>();

  constructor(script = WORKER) {
    this.#script = script;
  }

  open(options: RecordRowsOptions): RecordRows {
    const handle = this.#nextHandle++;
    const send: Send = (ask, transfer) => this.#request(ask, handle, transfer);
    return new ThreadedRecordRows(send, send({ op: 'open', options }));
  }

  /** Ends the thread; RecordRows still open on it fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #request(ask: Ask, handle: number, transfer: ArrayBuffer[] = []): Promise<RowReply> {
    this.#worker ??= this.#start();
    const worker = this.#worker;
    const id = this.#nextId++;
    if (this.#pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ ...ask, id, handle } as RowRequest, transfer);
      } catch (error) {
        this.#pending.delete(id);
        if (this.#pending.size === 0) worker.unref();
        reject(error);
      }
    });
  }

  #start(): Worker {
    const worker = new Worker(this.#script);
    worker.on('message', (reply: RowReply) => {
      const waiting = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if ('error' in reply) waiting?.reject(errorFromData(reply.error));
      else waiting?.resolve(reply);
    });
    const failAll = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const [id, waiting] of this.#pending) {
        this.#pending.delete(id);
        waiting.reject(error);
      }
    };
    worker.on('error', (error) => failAll(new Error(`the row thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => failAll(new Error(`the row thread ended (exit code ${code}) before it answered`)));
    return worker;
  }
}

type Send = (ask: Ask, transfer?: ArrayBuffer[]) => Promise<RowReply>;

/** A RecordRows on the thread: records go over in batches, at most BATCHES_IN_FLIGHT of them unanswered. */
class ThreadedRecordRows implements RecordRows {
  readonly #send: Send;
  #batch: Buffer[] = [];
  #longIntegers: boolean[] = [];
  #batchBytes = 0;
  #inFlight: Promise<void>[] = [];
  #failure: { error: unknown } | undefined;
  part = { rows: 0, bytes: 0 };

  /** `opened`: the open request's answer, whose failure is the first add's, like any batch's. */
  constructor(send: Send, opened: Promise<RowReply>) {
    this.#send = send;
    this.#inFlight.push(this.#settled(opened));
  }

  async add(bytes: Buffer, mayHoldLongIntegers: boolean): Promise<void> {
    this.#throwIfFailed();
    this.#batch.push(bytes);
    this.#longIntegers.push(mayHoldLongIntegers);
    this.#batchBytes += bytes.length;
    if (this.#batchBytes < BATCH_BYTES) return;
    this.#sendBatch();
    if (this.#inFlight.length > BATCHES_IN_FLIGHT) await this.#inFlight.shift();
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }

  rotate(evenIfEmpty: boolean): Promise<RowParts> {
    return this.#finish({ op: 'rotate', evenIfEmpty });
  }

  close(): Promise<RowParts> {
    return this.#finish({ op: 'close' });
  }

  async abort(): Promise<void> {
    this.#batch = [];
    this.#longIntegers = [];
    this.#batchBytes = 0;
    this.#inFlight = [];
    try {
      await this.#send({ op: 'abort' });
    } catch (error) {
      // A thread that failed or ended took its open parts' state with it; staging is cleared at the next run.
      if (this.#failure === undefined) throw error;
    }
  }

  /** Sends what is batched, then `ask`; the thread answers it after every batch, so it covers them all. */
  async #finish(ask: Ask): Promise<RowParts> {
    this.#sendBatch();
    this.#inFlight = [];
    const reply = await this.#send(ask);
    this.part = reply.part;
    if (!('parts' in reply) || reply.parts === undefined) throw new Error(`row thread: no parts in its answer`);
    return reply.parts;
  }

  #sendBatch(): void {
    if (this.#batch.length === 0) return;
    const bytes = new Uint8Array(this.#batchBytes);
    const ends = new Uint32Array(this.#batch.length);
    const longIntegers = Uint8Array.from(this.#longIntegers, Number);
    let end = 0;
    this.#batch.forEach((record, i) => {
      bytes.set(record, end);
      end += record.length;
      ends[i] = end;
    });
    this.#batch = [];
    this.#longIntegers = [];
    this.#batchBytes = 0;
    this.#inFlight.push(this.#settled(this.#send({ op: 'add', bytes, ends, longIntegers }, [bytes.buffer])));
  }

  /** A reply nobody awaits: its failure is kept for the next add, rotate or close to throw. */
  #settled(reply: Promise<RowReply>): Promise<void> {
    return reply.then(
      (answer) => {
        this.part = answer.part;
      },
      (error: unknown) => {
        this.#failure ??= { error };
      },
    );
  }
}
