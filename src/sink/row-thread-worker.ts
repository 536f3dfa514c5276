import type { MessagePort } from 'node:worker_threads';
import { parentPort } from 'node:worker_threads';
import { openRecordRows, type RecordRows, type RowParts } from './record-rows.js';
import { type ErrorData, errorAsData, type RowReply, type RowRequest } from './row-thread-protocol.js';

/** The thread of RowThread: one RecordRows per handle, each handle's requests done one after another. */
interface Opened {
  rows: RecordRows | undefined;
  queue: Promise<void>;
  /** After a failure the handle's writers are in no known state: every later request but abort gets this error. */
  failure: ErrorData | undefined;
}

const port = parentPort as MessagePort;
const handles = new Map<number, Opened>();
const NONE = { rows: 0, bytes: 0 };

port.on('message', (request: RowRequest) => {
  let opened = handles.get(request.handle);
  if (opened === undefined) {
    opened = { rows: undefined, queue: Promise.resolve(), failure: undefined };
    handles.set(request.handle, opened);
  }
  const handle = opened;
  handle.queue = handle.queue.then(async () => {
    const reply = (answer: Omit<RowReply, 'id' | 'part'>) =>
      port.postMessage({ id: request.id, part: handle.rows?.part ?? NONE, ...answer } as RowReply);
    if (handle.failure && request.op !== 'abort') reply({ error: handle.failure });
    else {
      try {
        const parts = await perform(handle, request);
        reply(parts ? { parts } : {});
      } catch (error) {
        const data = errorAsData(error);
        if (request.op !== 'abort') handle.failure = data;
        reply({ error: data });
      }
    }
    if (request.op === 'close' || request.op === 'abort') handles.delete(request.handle);
  });
});

async function perform(handle: Opened, request: RowRequest): Promise<RowParts | undefined> {
  if (request.op === 'abort') return void (await handle.rows?.abort());
  if (request.op === 'open') {
    handle.rows = openRecordRows(request.options);
    return undefined;
  }
  const rows = handle.rows;
  if (rows === undefined) throw new Error(`row thread: handle ${request.handle} was never opened`);
  if (request.op === 'rotate') return rows.rotate(request.evenIfEmpty);
  if (request.op === 'close') return rows.close();
  const { bytes, ends, longIntegers } = request;
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = 0;
  for (const [i, end] of ends.entries()) {
    await rows.add(all.subarray(start, end), longIntegers[i] === 1);
    start = end;
  }
  return undefined;
}
