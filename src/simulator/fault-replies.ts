import { ERRORS, type ErrorReply, SERVER_ERRORS } from './errors.js';
import type { FaultDecision } from './faults.js';
import type { LeakyBucket } from './rate-limit.js';
import { errorReply, type Reply } from './reply.js';
import type { ShopState } from './shop-state.js';

/**
 * The reply a list/count request gets instead of its route's when a drawn fault answers it (a frozen or locked shop,
 * a redirect, a 429, a page_info 400, a 5xx), counted under its knob; undefined when the route answers. A 429 storm
 * sets the call-limit header in `headers` to a full bucket.
 */
export function faultReply(
  state: ShopState,
  fault: FaultDecision,
  pathAndQuery: string,
  bucket: LeakyBucket,
  headers: Record<string, string | number>,
): Reply | undefined {
  if (fault.answer) {
    state.injected('failFromRequest');
    return errorReply(answerError(fault.answer, pathAndQuery));
  }
  if (fault.throttle !== 'none') {
    state.stats.throttled++;
    if (fault.throttle === 'bucket-full') {
      state.injected('throttleStorm');
      headers['X-Shopify-Shop-Api-Call-Limit'] = bucket.fullHeader();
    } else state.injected('throttleStormRate');
    return errorReply(ERRORS.throttled(bucket.leakPerSecond));
  }
  if (fault.pageInfoError) {
    state.injected('pageInfoErrorRate');
    return errorReply(ERRORS.pageInfoInvalid());
  }
  const serverError = SERVER_ERRORS[fault.serverError];
  if (serverError) {
    state.injected('serverErrorRate');
    return {
      status: serverError.status,
      text: serverError.body,
      records: 0,
      headers: { 'Content-Type': serverError.type },
    };
  }
  return undefined;
}

/** Counts the body fault about to damage a reply. */
export function countBodyFault(state: ShopState, fault: FaultDecision): void {
  if (fault.body === 'reset') state.injected('resetRate');
  else if (fault.body !== 'intact') state.injected('truncateRate');
  else if (fault.slowMs > 0) state.injected('slowRate');
}

function answerError(answer: { status: number; location?: string }, pathAndQuery: string): ErrorReply {
  if (answer.status === 402) return ERRORS.frozen();
  if (answer.status === 423) return ERRORS.locked();
  return ERRORS.redirect(answer.status, `${answer.location}${pathAndQuery}`);
}
