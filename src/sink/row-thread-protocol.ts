import { SinkError, type SinkErrorCode } from './errors.js';
import type { RecordRowsOptions, RowParts } from './record-rows.js';

/** What RowThread asks of its thread about the RecordRows `handle`; the thread answers each request in order. */
export type RowRequest = { id: number; handle: number } & (
  | { op: 'open'; options: RecordRowsOptions }
  /** Records back to back in `bytes`, record i ending at `ends[i]`, `longIntegers[i]` its mayHoldLongIntegers. */
  | { op: 'add'; bytes: Uint8Array; ends: Uint32Array; longIntegers: Uint8Array }
  | { op: 'rotate'; evenIfEmpty: boolean }
  | { op: 'close' }
  | { op: 'abort' }
);

export type RowReply = { id: number; part: { rows: number; bytes: number } } & (
  | { parts?: RowParts }
  | { error: ErrorData }
);

/**
 * An error as it can cross to another thread: structured clone keeps an Error's message but not its code or path,
 * which decide its exit code (see cli/failure.ts).
 */
export interface ErrorData {
  name: string;
  message: string;
  code?: string;
  path?: string;
  syscall?: string;
  errno?: number;
}

export function errorAsData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, path, syscall, errno } = error as Partial<Record<'code' | 'path' | 'syscall', unknown>> & {
    errno?: unknown;
  };
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof path === 'string' ? { path } : {}),
    ...(typeof syscall === 'string' ? { syscall } : {}),
    ...(typeof errno === 'number' ? { errno } : {}),
  };
}

export function errorFromData(data: ErrorData): Error {
  if (data.name === 'SinkError' && data.code !== undefined)
    return new SinkError(data.code as SinkErrorCode, data.message);
  const { name, message, ...facts } = data;
  const error = Object.assign(new Error(message), facts);
  error.name = name;
  return error;
}
