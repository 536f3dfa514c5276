import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JsonObject, parseJson } from '../../src/shopify/json.js';

/** updated_at texts of every copy of a record the shop served, keyed `<resource>:<id>`. */
export type ServedCopies = Map<string, string[]>;

/** Runs before a list response goes on to the client, with the request's query and the ids the page carries. */
export type BeforeAnswer = (resource: string, query: URLSearchParams, ids: string[]) => Promise<void>;

/** Returns the bytes a list response's body is replaced with on its way to the client (e.g. damaged ones). */
export type AlterBody = (resource: string, body: Buffer) => Buffer;

/**
 * A pass-through proxy on 127.0.0.1:0 in front of a simulated shop that notes every record copy a list response
 * carried. The Host header goes through unchanged, so the shop's Link URLs name the proxy. `dropLinks` plays a shop
 * that never sends Link headers; `alter` replaces a list body on its way; `onRequest` sees each request arrive.
 */
export async function recordingProxy(
  target: string,
  beforeAnswer?: BeforeAnswer,
  options: { alter?: AlterBody; dropLinks?: boolean; onRequest?: (url: URL) => void } = {},
): Promise<{ url: string; served: ServedCopies; close(): Promise<void> }> {
  const upstream = new URL(target);
  const served: ServedCopies = new Map();
  const server = http.createServer((request, response) => {
    options.onRequest?.(new URL(request.url ?? '/', target));
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', async () => {
          let body: Buffer = Buffer.concat(chunks);
          const url = new URL(request.url ?? '/', target);
          const list = /\/(products|customers|orders)\.json$/.exec(url.pathname);
          if (list && answer.statusCode === 200) {
            const ids = note(served, list[1] as string, body.toString('utf8'));
            await beforeAnswer?.(list[1] as string, url.searchParams, ids);
            body = options.alter?.(list[1] as string, body) ?? body;
          }
          const { link: _link, ...withoutLink } = answer.headers;
          response.writeHead(answer.statusCode ?? 502, options.dropLinks ? withoutLink : answer.headers);
          response.end(body);
        });
      },
    );
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function note(served: ServedCopies, resource: string, text: string): string[] {
  const records = (parseJson(text) as JsonObject)[resource] as JsonObject[];
  const ids = records.map((record) => String(record.id));
  records.forEach((record, i) => {
    // A page of a few fields only (the placement probe's id and created_at) serves no copy of the record.
    if (record.updated_at === undefined) return;
    const key = `${resource}:${ids[i]}`;
    served.set(key, [...(served.get(key) ?? []), String(record.updated_at)]);
  });
  return ids;
}
