import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A shop that answers every request with one fixed status and Shopify's body for it: for the failures the simulated
 * shop has no reason to produce (missing scope, frozen or locked shop). Counts the requests it saw.
 */
export async function startStatusShop(
  status: number,
  body: unknown,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests++;
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
