import type { FaultOptions, LostAnswer } from './options.js';
import { Rng, STREAM } from './random.js';

export type BodyFault = 'intact' | 'reset' | 'truncate-honest' | 'truncate-chunked';

/** What a list or count request is, as far as faults care. */
export interface FaultTarget {
  kind: 'list' | 'count';
  /** The request carries a `page_info` cursor. */
  pageInfo: boolean;
}

/** What happens to one list/count request. */
export interface FaultDecision {
  /** Answer with this status instead (402, 423, or a redirect to `location` + the request's path and query). */
  answer: { status: number; location?: string } | undefined;
  /** A 429: because of another limit (the bucket has room), or because the bucket is full. */
  throttle: 'none' | 'other-limit' | 'bucket-full';
  /** Index into SERVER_ERRORS, or -1. */
  serverError: number;
  /** Shopify's 400 for an invalid page_info. */
  pageInfoError: boolean;
  /** The `Link` header's rel is unquoted. */
  malformedLink: boolean;
  /** The next link repeats the request's own page_info. */
  cursorLoop: boolean;
  body: BodyFault;
  /** Fraction of the body sent before a reset or a cut. */
  cutAt: number;
  slowMs: number;
}

const NONE: FaultDecision = {
  answer: undefined,
  throttle: 'none',
  serverError: -1,
  pageInfoError: false,
  malformedLink: false,
  cursorLoop: false,
  body: 'intact',
  cutAt: 1,
  slowMs: 0,
};

const DRAWS = 7;

/**
 * Draws faults for list/count requests from a seeded stream. Every request consumes the same number of draws whatever
 * happens, so the n-th request of a run always meets the same fault; the knobs that start "after N" requests count
 * them.
 */
export class FaultPlan {
  private rng: Rng;
  private oversizedRng: Rng;
  private lostRng: Rng;
  private applied = { all: 0, byLabel: new Map<string, number>() };
  /** Requests per route label (see lateAnswerMs). */
  private readonly routed = new Map<string, number>();
  private oversizedTurn = 0;
  private burstLeft = 0;
  private errorTurn = 0;
  private listRequests = 0;
  private decided = { all: 0, lists: 0, cursors: 0 };

  constructor(
    readonly options: FaultOptions,
    shopSeed: number,
  ) {
    this.rng = new Rng(options.seed ?? shopSeed, STREAM.faults);
    this.oversizedRng = new Rng(options.seed ?? shopSeed, STREAM.oversizedPages);
    this.lostRng = new Rng(options.seed ?? shopSeed, STREAM.lostAnswers);
  }

  get ignoreFilters(): boolean | 'created_at' {
    return this.options.ignoreFilters ?? false;
  }

  decide(target: FaultTarget): FaultDecision {
    const o = this.options;
    const draws = Array.from({ length: DRAWS }, () => this.rng.float());
    const all = ++this.decided.all;
    const lists = target.kind === 'list' ? ++this.decided.lists : this.decided.lists;
    const cursors = target.pageInfo ? ++this.decided.cursors : this.decided.cursors;
    const storm = o.throttleStorm;
    const inStorm = storm !== undefined && all > storm.after && all <= storm.after + storm.requests;
    const fail = o.failFromRequest;
    const decision: FaultDecision = {
      ...NONE,
      answer:
        fail !== undefined && all > fail.after
          ? { status: fail.status, ...('location' in fail && { location: fail.location }) }
          : undefined,
      throttle: inStorm ? 'bucket-full' : draw(draws, 0, o.throttleStormRate) ? 'other-limit' : 'none',
      pageInfoError: target.pageInfo && draw(draws, 6, o.pageInfoErrorRate),
      malformedLink: o.malformedLinkAfter !== undefined && target.kind === 'list' && lists > o.malformedLinkAfter,
      cursorLoop: o.cursorLoopAfter !== undefined && target.pageInfo && cursors > o.cursorLoopAfter,
    };
    if (this.burstLeft > 0) {
      this.burstLeft--;
      decision.serverError = this.errorTurn % 4;
    } else if (draw(draws, 1, o.serverErrorRate)) {
      this.errorTurn++;
      decision.serverError = this.errorTurn % 4;
      this.burstLeft = Math.max(1, o.serverErrorBurst ?? 1) - 1;
    }
    const cut = draws[5] as number;
    if (draw(draws, 2, o.resetRate)) decision.body = 'reset';
    else if (draw(draws, 3, o.truncateRate)) decision.body = cut < 0.5 ? 'truncate-honest' : 'truncate-chunked';
    decision.cutAt = 0.1 + cut * 0.8;
    decision.slowMs = draw(draws, 4, o.slowRate) ? (o.slowMs ?? 2000) : 0;
    return decision;
  }

  /**
   * For a page the `oversizedPages` knob covers: the 5xx it gets (index into SERVER_ERRORS), or -1 when its draw
   * spares it. Drawn from a stream of its own, so the other knobs' draws stay where they were.
   */
  oversizedPageError(): number {
    if (!this.oversizedRng.chance(this.options.oversizedPages?.rate ?? 1)) return -1;
    return this.oversizedTurn++ % 4;
  }

  /**
   * Counts a write the shop applied (route `label`); how its answer is lost (FaultOptions.lostAnswers), or undefined
   * when it is delivered. Every applied write takes one draw from a stream of its own, so ordinals and shares stay put.
   */
  lostAnswer(label: string): LostAnswer | undefined {
    const knob = this.options.lostAnswers;
    const all = ++this.applied.all;
    const mine = nextOrdinal(this.applied.byLabel, label);
    const drawn = this.lostRng.float() < (knob?.rate ?? 0);
    const named = (knob?.writes ?? []).some((pick) => pick === all || pick === label || pick === `${label}#${mine}`);
    return knob && (drawn || named) ? (knob.as ?? 'reset') : undefined;
  }

  /** Counts a request to route `label`; the ms its answer comes late (FaultOptions.lateAnswers), 0 for most. */
  lateAnswerMs(label: string): number {
    const mine = nextOrdinal(this.routed, label);
    const knob = this.options.lateAnswers;
    return knob?.requests.includes(`${label}#${mine}`) ? knob.ms : 0;
  }

  /** Counts a list request; true when the churn knob wants a create/update/delete now. */
  churnDue(): boolean {
    this.listRequests++;
    const every = this.options.churn?.everyRequests;
    return every !== undefined && every > 0 && this.listRequests % every === 0;
  }
}

function draw(draws: readonly number[], index: number, rate: number | undefined): boolean {
  return (draws[index] as number) < (rate ?? 0);
}

/** Counts one more of `label` in `counts`; its ordinal, from 1. */
function nextOrdinal(counts: Map<string, number>, label: string): number {
  const ordinal = (counts.get(label) ?? 0) + 1;
  counts.set(label, ordinal);
  return ordinal;
}
