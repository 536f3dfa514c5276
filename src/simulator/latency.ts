import type { ResourceName } from '../shopify/resources.js';
import { Rng, STREAM } from './random.js';

/**
 * What a response's time depends on: counts, list pages, one record, writes (create, update, delete, variant create,
 * order actions, invites), and `rejected` (429s, and requests refused before any work: 401, an unknown path).
 */
export type LatencyKind = 'count' | 'list' | 'single' | 'write' | 'rejected';

/**
 * Response times of the simulated shop, counted from a request's arrival. Each kind has a median; a list page's is
 * `listMs + perRecordMs[resource] × records + perVariantMs × variants` (variants of the products listed). Each response
 * takes its median times a seeded lognormal factor of median 1 and log-spread `spread` (0: exactly the median), and a
 * share `stallShare` of responses takes `stallMs` longer.
 */
export interface LatencyModel {
  countMs: number;
  singleMs: number;
  writeMs: number;
  rejectedMs: number;
  listMs: number;
  perRecordMs: Record<ResourceName, number>;
  perVariantMs: number;
  spread: number;
  stallShare: number;
  stallMs: number;
}

export type LatencyPreset = 'none' | 'realistic';

/** A preset, or a model whose omitted fields are 0 (no spread, no stalls: an exact, fixed model). */
export type LatencyOptions =
  | LatencyPreset
  | (Partial<Omit<LatencyModel, 'perRecordMs'>> & { perRecordMs?: Partial<Record<ResourceName, number>> });

/** The lognormal spread whose p95 is 3× its median: ln 3 = σ × z(0.95). */
const SPREAD_P95_3X = Math.log(3) / 1.6448536269514722;

const NONE: LatencyModel = {
  countMs: 0,
  singleMs: 0,
  writeMs: 0,
  rejectedMs: 0,
  listMs: 0,
  perRecordMs: { products: 0, customers: 0, orders: 0 },
  perVariantMs: 0,
  spread: 0,
  stallShare: 0,
  stallMs: 0,
};

/**
 * `realistic` follows live-shop.md §6b (no published p50/p95 exists; these are the note's proposals from scattered
 * measurements): counts 150 ms (small-page round trips of 0.17–0.28 s), single records 250 ms, writes 500 ms; a page
 * 150 ms plus 7 ms per order (250 orders ≈ 1.9 s, as measured on a 16,000-order shop), 3 ms per customer, and 4 ms per
 * product plus 0.4 ms per variant (4 × (1 + variants/10)); 429s 50 ms (a bucket-full 429 reported 48 ms of server
 * time). The tail is lognormal with p95 = 3× the median, which alone puts about 1% of 250-order pages above 10 s, as
 * the note estimates. Real stalls (0.1%) last until the client's timeout (60–300 s); a crawl of a few hundred requests
 * cannot afford to meet one, and the reliability tests cover hung bodies with the `slowRate` fault, so here a stall is
 * 5 s: long enough that one request outlives many of its peers, as the pacer must tolerate.
 */
export const LATENCY_PRESETS: Record<LatencyPreset, LatencyModel> = {
  none: NONE,
  realistic: {
    countMs: 150,
    singleMs: 250,
    writeMs: 500,
    rejectedMs: 50,
    listMs: 150,
    perRecordMs: { products: 4, customers: 3, orders: 7 },
    perVariantMs: 0.4,
    spread: SPREAD_P95_3X,
    stallShare: 0.001,
    stallMs: 5000,
  },
};

/**
 * The model before latency had kinds: every response takes `baseMs`, a list page `perRecordMs` more per record,
 * exactly. Tests use it to slow a shop down evenly.
 */
export function uniformLatency(baseMs: number, perRecordMs = 0): LatencyModel {
  return {
    ...NONE,
    countMs: baseMs,
    singleMs: baseMs,
    writeMs: baseMs,
    rejectedMs: baseMs,
    listMs: baseMs,
    perRecordMs: { products: perRecordMs, customers: perRecordMs, orders: perRecordMs },
  };
}

/** One response, as far as its time goes. */
export interface LatencyRequest {
  kind: LatencyKind;
  /** The listed resource (list pages only). */
  resource?: ResourceName;
  /** Records on the page (list pages only). */
  records?: number;
  /** Variants of the products on the page (products pages only). */
  variants?: number;
}

/** The median time of a response: without the lognormal factor and without stalls. */
export function medianLatencyMs(model: LatencyModel, request: LatencyRequest): number {
  switch (request.kind) {
    case 'count':
      return model.countMs;
    case 'single':
      return model.singleMs;
    case 'write':
      return model.writeMs;
    case 'rejected':
      return model.rejectedMs;
    case 'list': {
      const perRecord = request.resource === undefined ? 0 : model.perRecordMs[request.resource];
      return model.listMs + perRecord * (request.records ?? 0) + model.perVariantMs * (request.variants ?? 0);
    }
  }
}

/**
 * The expected (mean) time of a response, stalls included: the lognormal's mean is its median × e^(σ²/2), and a stall
 * adds `stallMs` with probability `stallShare`. For a bound on a whole crawl; `medianLatencyMs` leaves both out.
 */
export function expectedLatencyMs(model: LatencyModel, request: LatencyRequest): number {
  return (
    medianLatencyMs(model, request) * Math.exp((model.spread * model.spread) / 2) + model.stallShare * model.stallMs
  );
}

/** One response's luck: its lognormal factor and its stall. */
export interface LatencyDraw {
  factor: number;
  stallMs: number;
}

/**
 * The seeded draws of one shop, one per request in arrival order: a run with the same options and the same request
 * order draws the same. Every request takes three uniforms whatever the model, so the stream never shifts.
 */
export class LatencyDraws {
  private readonly rng: Rng;

  constructor(
    private readonly model: LatencyModel,
    seed: number,
  ) {
    this.rng = new Rng(seed, STREAM.latency);
  }

  next(): LatencyDraw {
    const u1 = this.rng.float();
    const u2 = this.rng.float();
    const u3 = this.rng.float();
    // Box–Muller: a standard normal from two uniforms (1 - u1 is in (0, 1], so the log is finite).
    const normal = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
    return {
      factor: Math.exp(this.model.spread * normal),
      stallMs: u3 < this.model.stallShare ? this.model.stallMs : 0,
    };
  }
}
