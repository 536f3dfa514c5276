export type SinkErrorCode =
  | 'ERR_SINK_CLOSED'
  | 'ERR_SINK_ROW_TYPE'
  | 'ERR_SINK_RAW_RECORD'
  | 'ERR_SINK_PARQUET'
  | 'ERR_SINK_PARQUET_COUNT'
  | 'ERR_SINK_COUNT';

export class SinkError extends Error {
  override name = 'SinkError';
  constructor(
    readonly code: SinkErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
