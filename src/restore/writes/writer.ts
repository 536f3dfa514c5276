import { createHash } from 'node:crypto';
import { crashPoint } from '../../crash-point.js';
import type { Logger } from '../../log.js';
import { isJsonObject, type JsonObject, type JsonValue, parseJson, stringifyJson } from '../../shopify/json.js';
import type { ResourceName } from '../../shopify/resources.js';
import { ShopHttpError, ShopThrottledError, ShopWriteUnsureError } from '../../source/errors.js';
import type { ShopClient, WriteCall } from '../../source/shop-client.js';
import type { IdMap } from '../id-map.js';
import type { Journal, StepKey, StepKind } from '../journal.js';
import { readEnvelope } from '../shop-reads.js';
import { OrderCreateLimit } from './create-limit.js';
import { type ExecuteResult, noOutcome, type ResourceOutcome } from './outcome.js';

/**
 * Shopify's limit on new variants (1,000 a day once a shop has 50,000; restore.md §0.8) answers a 429 of its own, with
 * no Retry-After. Waiting out a day inside one run helps nobody: the run goes on with everything else and says when to
 * run it again.
 */
export const VARIANT_LIMIT_REASON =
  "the shop's daily limit on new variants is reached (Shopify allows 1,000 a day once a shop has 50,000): run the same command again later, it goes on from here";

export function isVariantLimit(error: ShopThrottledError): boolean {
  return /variant/i.test(error.bodyExcerpt);
}

type JournalEntry = DistributiveOmit<Parameters<Journal['append']>[0], 'at'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What every write of a restore goes through: the journal (intent before the request, fsynced; the result after), the
 * shop client and its pacer, the shop's extra limits (a development store's order limit, waited out; the daily variant
 * limit, after which no product write is sent), and the tally of what was written and what failed.
 */
export class RestoreWriter {
  readonly result: ExecuteResult = {
    resources: {},
    failures: [],
    written: { products: new Map(), customers: new Map(), orders: new Map() },
    writes: 0,
  };
  /** The shop's answer once its daily limit on new variants is reached: no product write is sent after it. */
  variantLimit: ShopThrottledError | undefined;
  /** Orders still to create, for the order limit's wait message. */
  ordersLeft = 0;
  private readonly orderLimit: OrderCreateLimit;
  private inFlight = 0;

  constructor(
    readonly client: ShopClient,
    readonly journal: Journal,
    readonly ids: IdMap,
    readonly logger: Logger | undefined,
    signal: AbortSignal | undefined,
  ) {
    this.orderLimit = new OrderCreateLimit(logger, () => this.ordersLeft, signal);
  }

  /** Whether an earlier write (this run's or an earlier run's) of this step is done. */
  done(key: StepKey): boolean {
    return this.journal.state(key)?.state === 'done';
  }

  /**
   * One write: its intent journaled (fsynced) before it is sent, with the natural key a create asks for (`naturalKey`:
   * a lost answer is looked up by it), its answer read under `envelope` (the record's key; undefined: the body is not
   * read). Order creates wait for the development-store limit when the shop has shown one.
   */
  async write(
    key: StepKey,
    path: string,
    call: WriteCall,
    envelope: string | undefined,
    naturalKey?: string,
  ): Promise<JsonObject> {
    const orderCreate = key.resource === 'orders' && key.step === 'create';
    // Product creates and updates, and the variant endpoint, may make variants: the variant limit's 429 is theirs.
    const variantWrite = key.resource === 'products' && key.step !== 'delete';
    for (;;) {
      if (orderCreate) await this.orderLimit.acquire();
      const request = `${call.method} ${path}`;
      const payload =
        call.body === undefined ? undefined : createHash('sha256').update(stringifyJson(call.body)).digest('hex');
      this.journalLine({
        kind: 'intent',
        ...key,
        request,
        ...(payload === undefined ? {} : { payload_sha256: payload }),
        ...(naturalKey === undefined ? {} : { key: naturalKey }),
      });
      crashPoint('restore-before-write');
      this.inFlight++;
      if (this.inFlight > 1) crashPoint('restore-mid-batch');
      try {
        const response = await this.client.send(
          this.client.apiUrl(path),
          call,
          envelope === undefined ? readAnything : readEnvelope(envelope),
          {
            shape: { kind: 'write', resource: key.resource },
            onRetry: () => this.result.writes++,
            ...(orderCreate ? { ownLimit: OrderCreateLimit.recognises } : {}),
            ...(variantWrite ? { ownLimit: isVariantLimit } : {}),
          },
        );
        if (orderCreate) this.orderLimit.applied();
        crashPoint('restore-after-write');
        return response.value;
      } catch (error) {
        if (variantWrite && error instanceof ShopThrottledError && this.variantLimit === undefined) {
          this.variantLimit = error;
          this.logger?.warn(
            { resource: 'products', error: error.message },
            `products: ${VARIANT_LIMIT_REASON}; the products left are not sent, and the orders that need them wait`,
          );
        }
        if (orderCreate && error instanceof ShopThrottledError) {
          this.orderLimit.refused(error);
          continue;
        }
        if (orderCreate) {
          if (error instanceof ShopWriteUnsureError) this.orderLimit.applied();
          else this.orderLimit.released();
        }
        throw error;
      } finally {
        this.inFlight--;
        this.result.writes++;
      }
    }
  }

  /** A 4xx (other than 401, 403, 402, 423: the run stops on those) is the record's failure, listed; false otherwise. */
  refusal(error: unknown, resource: ResourceName, id: string, step: StepKind): boolean {
    if (!(error instanceof ShopHttpError) || error.status < 400 || error.status >= 500) return false;
    if ([401, 402, 403, 423, 429].includes(error.status)) return false;
    this.fail({ step, resource, id }, error.status, error.errors, error.message);
    return true;
  }

  fail(key: StepKey, status: number | undefined, errors: JsonValue | undefined, message: string): void {
    const reason = {
      ...(status === undefined ? {} : { status }),
      ...(errors === undefined ? {} : { errors }),
      message,
    };
    this.journalLine({ kind: 'failed', ...key, ...reason });
    this.result.failures.push({ resource: key.resource, id: key.id, step: key.step, ...reason });
    this.outcome(key.resource).failed++;
  }

  journalLine(line: JournalEntry): void {
    this.journal.append({ ...line, at: new Date().toISOString() } as Parameters<Journal['append']>[0]);
  }

  outcome(resource: ResourceName): ResourceOutcome {
    let outcome = this.result.resources[resource];
    if (outcome === undefined) {
      outcome = noOutcome();
      this.result.resources[resource] = outcome;
    }
    return outcome;
  }
}

/** An answer whose body restore does not need (a delete's `{}`), or reads whole (an activation URL). */
function readAnything(body: Buffer): JsonObject {
  try {
    const parsed = parseJson(body.toString('utf8'));
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
