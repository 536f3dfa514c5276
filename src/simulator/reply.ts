import type { JsonValue } from '../shopify/json.js';
import type { ErrorReply } from './errors.js';
import { serialize } from './store.js';

/** A request as the handlers see it: path relative to the API prefix, query, parsed body. */
export interface SimRequest {
  method: string;
  /** e.g. `/products.json`, `/orders/123/cancel.json` */
  path: string;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when empty. */
  body: JsonValue | undefined;
  /** The body was present but not JSON. */
  bodyInvalid: boolean;
  /** `<http or https>://<Host header>`: Link URLs are absolute and use the host the client called (or linkOrigin). */
  origin: string;
  /** Faults of the `Link` header this list reply will carry. */
  linkFaults?: { malformed: boolean; cursorLoop: boolean };
}

export interface Reply {
  status: number;
  /** The body: JSON text, or its UTF-8 bytes (list pages). */
  text: string | Buffer;
  headers?: Record<string, string>;
  /** Records in the body, for the per-record latency. */
  records: number;
  /** Variants of the products in the body, for the per-variant latency. */
  variants?: number;
  /** List and count replies are where faults are injected. */
  faultable?: boolean;
}

export function jsonReply(status: number, value: JsonValue, records = 0): Reply {
  return { status, text: serialize(value), records };
}

export function errorReply(error: ErrorReply): Reply {
  return {
    status: error.status,
    text: serialize(error.body),
    records: 0,
    ...(error.headers && { headers: error.headers }),
  };
}

/** Thrown by handlers to answer with an error; the server turns it into the reply. */
export class ReplyError extends Error {
  override name = 'ReplyError';
  readonly code = 'ERR_SIM_REPLY';
  constructor(readonly error: ErrorReply) {
    super(`simulated shop answers ${error.status}`);
  }
}
