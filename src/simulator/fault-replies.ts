import type { ResourceName } from '../shopify/resources.js';
import { ERRORS, type ErrorReply, SERVER_ERRORS } from './errors.js';
import type { FaultDecision } from './faults.js';
import type { BaseFacts } from './generate/facts.js';
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
  if (fault.serverError >= 0) {
    state.injected('serverErrorRate');
    return serverErrorReply(fault.serverError, 0);
  }
  return undefined;
}

/**
 * The 5xx of a page too large to answer (FaultOptions.oversizedPages), counted; undefined when the page is served.
 * It takes the time of the page it would have been (`records`): the shop gave up on work it did.
 */
export function oversizedPageReply(
  state: ShopState,
  resource: ResourceName,
  limit: number,
  page: readonly { facts: BaseFacts }[],
): Reply | undefined {
  const knob = state.faults.options.oversizedPages;
  if (knob === undefined || knob.resource !== resource || limit <= knob.aboveLimit) return undefined;
  if (!page.some(({ facts }) => facts.id >= knob.minId && facts.id <= knob.maxId)) return undefined;
  const error = state.faults.oversizedPageError();
  if (error < 0) return undefined;
  state.injected('oversizedPages');
  return serverErrorReply(error, page.length);
}

/** The 502 or 504 a lost answer (FaultOptions.lostAnswers) is replaced with. */
export function lostAnswerReply(status: 502 | 504): Reply {
  return serverErrorReply(
    SERVER_ERRORS.findIndex((error) => error.status === status),
    0,
  );
}

function serverErrorReply(index: number, records: number): Reply {
  const error = SERVER_ERRORS[index] as (typeof SERVER_ERRORS)[number];
  return { status: error.status, text: error.body, records, headers: { 'Content-Type': error.type } };
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
