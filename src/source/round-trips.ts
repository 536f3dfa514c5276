import type { ResourceName } from '../shopify/resources.js';
import type { AnswerTiming } from './bucket-model.js';

/**
 * Round trips per kind of request. A count answers in a fraction of a second, a page of 250 orders in about two
 * (live-shop.md §1, §6b): one yardstick for both would make every page look slow, or every count look instant. So each
 * kind of request to each resource keeps its own recent answers, and nothing compares one kind's with another's.
 * List pages take longer the more records they hold, so their estimate is a line through (records, ms).
 */
export type RequestKind = 'count' | 'list' | 'single' | 'write';

export interface RoundTripSample {
  /** Records in the answer (a list page's length; 0 for a count, 1 for a single record). */
  records: number;
  ms: number;
}

/** Answers kept per kind: enough for a median to ignore a long tail, few enough to follow a shop that slows down. */
const SAMPLES_KEPT = 48;
/** Two list samples this many records apart measure the cost of a record. */
const MIN_RECORD_SPREAD = 10;

/** A round trip as a function of the records in the answer: `interceptMs + msPerRecord × records`. */
export interface RoundTripLine {
  interceptMs: number;
  msPerRecord: number;
  /** The fastest recent answer as a share of the line at its size (round trips stretch by a factor: a long tail). */
  fastestShare: number;
  /**
   * The mean answer as a share of the line at its size, each answer's share taken at most MEAN_SHARE_CAP: the line is
   * a median, and a long tail puts the mean of a lognormal round trip whose p95 is 3 times its median at 1.25 times
   * it, which is what a crawl's work costs.
   */
  meanShare: number;
}

/** A stall counts in the mean as this many times the line, however long it was: a few are a tail, not the shop. */
const MEAN_SHARE_CAP = 4;

/**
 * With answers of one size only, the share of their time taken as the request's fixed part, the rest as their records'.
 * A flat line would make a full page look as fast as the 25-record probe that first places a crawl's records (a fifth
 * of its time on a real shop, where an empty page takes about 0.2 s and 250 orders about 2 s): a crawl planned on it
 * starts with a fifth of the chains it needs. A line through the origin would overshoot as much the other way.
 */
const ONE_SIZE_FIXED_SHARE = 0.5;

/**
 * The share of a request's expected round trip (`expectedMs`) that has passed since it went on the wire at `sentMs`:
 * 0 while it has not gone or nothing is expected yet, 1 once it is due or late.
 */
export function roundTripPassed(sentMs: number | undefined, nowMs: number, expectedMs: number): number {
  if (sentMs === undefined || expectedMs <= 0) return 0;
  return Math.min(1, Math.max(0, nowMs - sentMs) / expectedMs);
}

/**
 * The line through answers of one kind: the Theil–Sen estimate (the median slope over pairs of answers of different
 * sizes, then the median intercept), robust against the long tail where a least-squares line would follow every
 * stall. Answers of one size give the line through their median with ONE_SIZE_FIXED_SHARE of it fixed. Undefined
 * before any answer.
 */
export function fitRoundTrips(samples: readonly RoundTripSample[]): RoundTripLine | undefined {
  if (samples.length === 0) return undefined;
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const a = samples[i] as RoundTripSample;
      const b = samples[j] as RoundTripSample;
      if (Math.abs(a.records - b.records) >= MIN_RECORD_SPREAD) slopes.push((b.ms - a.ms) / (b.records - a.records));
    }
  }
  const msPerRecord = slopes.length === 0 ? oneSizeSlope(samples) : Math.max(0, median(slopes));
  const interceptMs = median(samples.map((sample) => sample.ms - msPerRecord * sample.records));
  const shares = samples.map((sample) => sample.ms / Math.max(1, interceptMs + msPerRecord * sample.records));
  const meanShare = shares.reduce((sum, share) => sum + Math.min(MEAN_SHARE_CAP, share), 0) / shares.length;
  return { interceptMs, msPerRecord, fastestShare: Math.min(1, ...shares), meanShare };
}

function oneSizeSlope(samples: readonly RoundTripSample[]): number {
  const records = median(samples.map((sample) => sample.records));
  return records > 0 ? ((1 - ONE_SIZE_FIXED_SHARE) * median(samples.map((sample) => sample.ms))) / records : 0;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The recent answers of every kind of request to one shop. */
export class RoundTrips {
  private readonly kinds = new Map<string, { samples: RoundTripSample[]; line: RoundTripLine | undefined }>();

  observe(kind: RequestKind, resource: ResourceName | undefined, sample: RoundTripSample): void {
    const key = keyOf(kind, resource);
    const entry = this.kinds.get(key) ?? { samples: [], line: undefined };
    entry.samples.push(sample);
    if (entry.samples.length > SAMPLES_KEPT) entry.samples.shift();
    entry.line = undefined;
    this.kinds.set(key, entry);
  }

  /** The typical round trip of an answer of this kind with `records` records; undefined before the first answer. */
  typicalMs(kind: RequestKind, resource: ResourceName | undefined, records: number): number | undefined {
    const line = this.line(kind, resource);
    return line && lineAt(line, records);
  }

  /** The mean round trip of an answer of this kind with `records` records (see RoundTripLine.meanShare). */
  expectedMs(kind: RequestKind, resource: ResourceName | undefined, records: number): number | undefined {
    const line = this.line(kind, resource);
    return line && lineAt(line, records) * line.meanShare;
  }

  /** The fastest recent answer of this kind, brought to `records` records along the line. */
  fastestMs(kind: RequestKind, resource: ResourceName | undefined, records: number): number | undefined {
    const line = this.line(kind, resource);
    return line && lineAt(line, records) * line.fastestShare;
  }

  private line(kind: RequestKind, resource: ResourceName | undefined): RoundTripLine | undefined {
    const entry = this.kinds.get(keyOf(kind, resource));
    if (entry === undefined) return undefined;
    entry.line ??= fitRoundTrips(entry.samples);
    return entry.line;
  }
}

/** The line's round trip for an answer of `records` records. */
function lineAt(line: RoundTripLine, records: number): number {
  return Math.max(0, line.interceptMs + line.msPerRecord * records);
}

function keyOf(kind: RequestKind, resource: ResourceName | undefined): string {
  return `${kind} ${resource ?? ''}`;
}

/** An answer is prompt when it took at most this many times the typical round trip of its kind and size, plus slack. */
const PROMPT_FACTOR = 1.5;
const PROMPT_SLACK_MS = 100;

/**
 * Whether an answer dates the server's count of its request (see BucketModel.observe), judged against answers of its
 * own kind and size only; taken before the answer joins them. The first answer of a kind has nothing to be compared
 * with and counts as prompt.
 */
export function answerTiming(
  roundTrips: RoundTrips,
  kind: RequestKind,
  resource: ResourceName | undefined,
  records: number,
  ms: number,
): AnswerTiming {
  const typical = roundTrips.typicalMs(kind, resource, records);
  const fastest = roundTrips.fastestMs(kind, resource, records) ?? ms;
  return {
    prompt: typical === undefined || ms <= typical * PROMPT_FACTOR + PROMPT_SLACK_MS,
    wayThereMs: Math.min(ms, fastest) / 2,
  };
}
