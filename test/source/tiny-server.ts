import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, hit: number) => void;

/** A throwaway HTTP server on 127.0.0.1:0 that records every request it gets. */
export async function tinyServer(
  handler: Handler,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    handler(request, response, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  response: http.ServerResponse,
  status: number,
  body: string,
  headers: http.OutgoingHttpHeaders = {},
) {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-shopify-shop-api-call-limit': '1/40',
    ...headers,
  });
  response.end(body);
}

/**
 * Writes `chunk` again and again until `total` bytes went out or the client hung up, waiting for the socket to drain
 * between writes: a body of any size, generated on the fly, never allocated. Returns what the socket accepted so far.
 */
export function streamBody(response: http.ServerResponse, chunk: Buffer, total: number): { bytes: number } {
  const sent = { bytes: 0 };
  const more = () => {
    while (sent.bytes < total && !response.destroyed) {
      sent.bytes += chunk.length;
      if (!response.write(chunk)) return void response.once('drain', more);
    }
    response.end();
  };
  more();
  return sent;
}
