import type { FaultOptions } from './options.js';
import { Rng, STREAM } from './random.js';

export type BodyFault = 'intact' | 'reset' | 'truncate-honest' | 'truncate-chunked';

/** What happens to one list/count request. */
export interface FaultDecision {
  throttle: boolean;
  /** Index into SERVER_ERRORS, or -1. */
  serverError: number;
  body: BodyFault;
  /** Fraction of the body sent before a reset or a cut. */
  cutAt: number;
  slowMs: number;
}

const NONE: FaultDecision = { throttle: false, serverError: -1, body: 'intact', cutAt: 1, slowMs: 0 };

/**
 * Draws faults for list/count requests from a seeded stream. Every request consumes the same number of draws whatever
 * happens, so the n-th request of a run always meets the same fault.
 */
export class FaultPlan {
  private rng: Rng;
  private burstLeft = 0;
  private errorTurn = 0;
  private listRequests = 0;

  constructor(
    readonly options: FaultOptions,
    shopSeed: number,
  ) {
    this.rng = new Rng(options.seed ?? shopSeed, STREAM.faults);
  }

  get ignoreFilters(): boolean | 'created_at' {
    return this.options.ignoreFilters ?? false;
  }

  decide(): FaultDecision {
    const o = this.options;
    const draws = Array.from({ length: 6 }, () => this.rng.float()) as [number, number, number, number, number, number];
    if (!(o.serverErrorRate || o.resetRate || o.truncateRate || o.slowRate || o.throttleStormRate)) return NONE;
    const throttle = draws[0] < (o.throttleStormRate ?? 0);
    let serverError = -1;
    if (this.burstLeft > 0) {
      this.burstLeft--;
      serverError = this.errorTurn % 4;
    } else if (draws[1] < (o.serverErrorRate ?? 0)) {
      this.errorTurn++;
      serverError = this.errorTurn % 4;
      this.burstLeft = Math.max(1, o.serverErrorBurst ?? 1) - 1;
    }
    let body: BodyFault = 'intact';
    if (draws[2] < (o.resetRate ?? 0)) body = 'reset';
    else if (draws[3] < (o.truncateRate ?? 0)) body = draws[5] < 0.5 ? 'truncate-honest' : 'truncate-chunked';
    return {
      throttle,
      serverError,
      body,
      cutAt: 0.1 + draws[5] * 0.8,
      slowMs: draws[4] < (o.slowRate ?? 0) ? (o.slowMs ?? 2000) : 0,
    };
  }

  /** Counts a list request; true when the churn knob wants a create/update/delete now. */
  churnDue(): boolean {
    this.listRequests++;
    const every = this.options.churn?.everyRequests;
    return every !== undefined && every > 0 && this.listRequests % every === 0;
  }
}
