import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type JsonObject, parseJson } from '../shopify/json.js';
import { API_PREFIX, type ResourceName } from '../shopify/resources.js';
import { ACCESS_SCOPES_PATH } from '../shopify/scopes.js';
import { churn } from './churn.js';
import { ERRORS } from './errors.js';
import { countBodyFault, faultReply, lostAnswerReply } from './fault-replies.js';
import type { FaultDecision } from './faults.js';
import { type LatencyKind, medianLatencyMs } from './latency.js';
import {
  type FaultOptions,
  type InjectedFaults,
  type LostAnswer,
  resolveShopOptions,
  type ShopOptions,
} from './options.js';
import { errorReply, type Reply, ReplyError, type SimRequest } from './reply.js';
import { matchRoute } from './router.js';
import { accessScopesReply, requireScope } from './scopes.js';
import { ShopState } from './shop-state.js';
import type { SideEffects } from './writes/ledger.js';

export interface RunningShop {
  /** `http://127.0.0.1:<port>` (https with the tls option); the API lives under `url + API_PREFIX`. */
  url: string;
  token: string;
  close(): Promise<void>;
  /** Current records, exactly as served: `parseJson(servedText)` equals them (ids above 2^53 are bigint). */
  records(resource: ResourceName): Iterable<JsonObject>;
  /** Current number of records, every status included. */
  count(resource: ResourceName): number;
  stats(): {
    requests: number;
    /** 429s: the bucket's, the fault knobs', and the write limits' (orderCreateThrottle, variantCreateThrottle). */
    throttled: number;
    byPath: Record<string, number>;
    faults: InjectedFaults;
    /** Writes the shop applied (2xx), including those whose answer was lost. */
    writes: number;
    /** Applied writes whose answer the client never got (FaultOptions.lostAnswers). */
    lostAnswers: number;
    /** Creations refused by orderCreateThrottle and variantCreateThrottle. */
    writeLimits: { orderCreate: number; variantCreate: number };
    /** Mails, stock moves and refunds the writes would have caused on a real shop. */
    sideEffects: SideEffects;
    /** The most requests the shop held at once, and when (performance.now() of its process) it was first and last busy. */
    busy: { mostInFlight: number; firstArrivalMs: number | undefined; lastAnswerMs: number | undefined };
  };
  /** Replaces the fault knobs (and restarts their seeded stream) while the shop runs. */
  setFaults(faults: FaultOptions): void;
  /** Metafields written inline on a record (`variants` for a variant's), as Shopify would list them; [] when none. */
  metafields(resource: ResourceName | 'variants', id: bigint): JsonObject[];
}

const JSON_TYPE = 'application/json; charset=utf-8';

function acceptsJson(accept: string | undefined): boolean {
  return accept === undefined || accept === '' || /application\/json|application\/\*|\*\/\*/i.test(accept);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a reply, possibly damaged by a body fault (reset, truncation, stall). */
async function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  text: string | Buffer,
  fault: FaultDecision | undefined,
): Promise<void> {
  if (fault === undefined || (fault.body === 'intact' && fault.slowMs === 0)) {
    // A text body (errors, counts, writes) is written as a string: the socket encodes it once. List pages come as
    // bytes already (json-bytes.ts).
    response.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
    response.end(text);
    return;
  }
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  const cut = Math.max(1, Math.floor(body.length * (fault?.cutAt ?? 1)));
  const destroyAfter = (part: Buffer) => response.write(part, () => response.socket?.destroy());
  switch (fault?.body) {
    case 'reset':
      response.writeHead(status, { ...headers, 'Content-Length': body.length });
      destroyAfter(body.subarray(0, cut));
      return;
    case 'truncate-honest':
      response.writeHead(status, { ...headers, 'Content-Length': cut });
      response.end(body.subarray(0, cut));
      return;
    case 'truncate-chunked':
      response.writeHead(status, headers);
      destroyAfter(body.subarray(0, cut));
      return;
    default:
      response.writeHead(status, { ...headers, 'Content-Length': body.length });
      if (fault && fault.slowMs > 0) {
        response.write(body.subarray(0, cut));
        await sleep(fault.slowMs);
        if (!response.destroyed) response.end(body.subarray(cut));
        return;
      }
      response.end(body);
  }
}

/** Starts a simulated Shopify shop on 127.0.0.1. See ShopOptions for the knobs. */
export async function startShop(options: ShopOptions = {}): Promise<RunningShop> {
  const resolved = resolveShopOptions(options);
  const state = new ShopState(resolved);
  const scheme = resolved.tls ? 'https' : 'http';
  let churnRound = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const arrivedMs = performance.now();
    const luck = state.latency.next();
    state.stats.requests++;
    const text = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const headers: Record<string, string | number> = {
      'Content-Type': JSON_TYPE,
      'X-Shopify-API-Version': resolved.answeredApiVersion,
      'X-Request-Id': randomUUID(),
    };
    const token = request.headers['x-shopify-access-token'];
    const label = (routeLabel: string) => {
      state.stats.byPath[routeLabel] = (state.stats.byPath[routeLabel] ?? 0) + 1;
    };
    let kind: LatencyKind = 'rejected';
    let resource: ResourceName | undefined;
    let lateMs = 0;
    // The latency is the shop's response time, counted from the request's arrival: the simulator's own work of
    // building the page happens inside it, as a real shop's does, instead of adding to it. Every 429 is answered fast.
    const finish = async (reply: Reply, fault?: FaultDecision, lost?: LostAnswer) => {
      const median = medianLatencyMs(resolved.latency, {
        kind: reply.status === 429 ? 'rejected' : kind,
        resource,
        records: reply.records,
        variants: reply.variants,
      });
      const wait = arrivedMs + median * luck.factor + luck.stallMs + lateMs - performance.now();
      if (wait > 0) await sleep(wait);
      if (lost === 'reset') {
        response.socket?.destroy();
        return;
      }
      const sent = lost === undefined ? reply : lostAnswerReply(lost);
      await send(response, sent.status, { ...headers, ...sent.headers }, sent.text, fault);
    };
    const scopesAsked = url.pathname === ACCESS_SCOPES_PATH && method === 'GET';
    if (!url.pathname.startsWith(`${API_PREFIX}/`) && !scopesAsked) {
      label(`${method} (unknown)`);
      headers['X-Shopify-Shop-Api-Call-Limit'] = state.bucket('').peek();
      return finish(errorReply(ERRORS.notFound()));
    }
    if (typeof token !== 'string' || token !== resolved.token) {
      label(`${method} (unauthorized)`);
      headers['X-Shopify-Shop-Api-Call-Limit'] = state.bucket('').peek();
      return finish(errorReply(ERRORS.unauthorized()));
    }
    const bucket = state.bucket(token);
    const take = bucket.take();
    headers['X-Shopify-Shop-Api-Call-Limit'] = take.header;
    if (!take.allowed) {
      state.stats.throttled++;
      label(`${method} (throttled)`);
      return finish(errorReply(ERRORS.throttled(bucket.leakPerSecond)));
    }
    if (scopesAsked) {
      label('GET /oauth/access_scopes.json');
      kind = 'single';
      return finish(accessScopesReply(resolved.scopes));
    }
    const path = url.pathname.slice(API_PREFIX.length);
    let reply: Reply;
    let fault: FaultDecision | undefined;
    try {
      if (!acceptsJson(request.headers.accept)) throw new ReplyError(ERRORS.notAcceptable());
      const route = matchRoute(method, path, url.searchParams);
      if (!route) throw new ReplyError(ERRORS.notFound());
      label(route.label);
      lateMs = state.faults.lateAnswerMs(route.label);
      if (lateMs > 0) state.injected('lateAnswers');
      kind = route.kind;
      resource = route.resource;
      requireScope(resolved.scopes, method, route.resource);
      if (route.kind === 'list' || route.kind === 'count') {
        fault = state.faults.decide({ kind: route.kind, pageInfo: url.searchParams.has('page_info') });
        const answered = faultReply(state, fault, `${url.pathname}${url.search}`, bucket, headers);
        if (answered) return finish(answered);
        if (route.kind === 'list' && state.faults.churnDue()) churn(state, route.resource, churnRound++);
      }
      let body: SimRequest['body'];
      let bodyInvalid = false;
      if (text.trim() !== '') {
        try {
          body = parseJson(text);
        } catch {
          bodyInvalid = true;
        }
      }
      const simRequest: SimRequest = {
        method,
        path,
        query: url.searchParams,
        body,
        bodyInvalid,
        origin:
          state.faults.options.linkOrigin ??
          `${scheme}://${request.headers.host ?? `127.0.0.1:${(server.address() as AddressInfo).port}`}`,
        ...(fault && { linkFaults: { malformed: fault.malformedLink, cursorLoop: fault.cursorLoop } }),
      };
      reply = route.run(state, simRequest);
      if (route.kind === 'write' && reply.status >= 200 && reply.status < 300) {
        state.stats.writes++;
        const lost = state.faults.lostAnswer(route.label);
        if (lost !== undefined) {
          state.injected('lostAnswers');
          return finish(reply, undefined, lost);
        }
      }
    } catch (error) {
      if (!(error instanceof ReplyError)) throw error;
      reply = errorReply(error.error);
      fault = undefined;
    }
    if (!reply.faultable) return finish(reply);
    if (fault) countBodyFault(state, fault);
    return finish(reply, fault);
  };

  const busy = { inFlight: 0, mostInFlight: 0, firstArrivalMs: undefined as number | undefined, lastAnswerMs: 0 };
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    busy.firstArrivalMs ??= performance.now();
    busy.mostInFlight = Math.max(busy.mostInFlight, ++busy.inFlight);
    response.once('close', () => {
      busy.inFlight--;
      busy.lastAnswerMs = performance.now();
    });
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      response.writeHead(500, { 'Content-Type': JSON_TYPE });
      response.end(JSON.stringify({ errors: `Internal Server Error: ${message}` }));
    });
  };
  const server = resolved.tls ? createHttpsServer(resolved.tls, listener) : createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    token: resolved.token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    records: (resource) => state.recordsOf(resource),
    count: (resource) => state.store(resource).size,
    stats: () => ({
      requests: state.stats.requests,
      throttled: state.stats.throttled,
      byPath: { ...state.stats.byPath },
      faults: { ...state.stats.faults },
      writes: state.stats.writes,
      lostAnswers: state.stats.faults.lostAnswers ?? 0,
      writeLimits: { ...state.stats.writeLimits },
      sideEffects: structuredClone(state.ledger.sideEffects),
      busy: {
        mostInFlight: busy.mostInFlight,
        firstArrivalMs: busy.firstArrivalMs,
        lastAnswerMs: busy.firstArrivalMs === undefined ? undefined : busy.lastAnswerMs,
      },
    }),
    setFaults: (faults) => state.setFaults(faults),
    metafields: (resource, id) => structuredClone(state.ledger.metafields.get(`${resource}/${id}`) ?? []),
  };
}
