import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

/** The first byte of a TLS handshake record; a plain HTTP request starts with a method name. */
const TLS_HANDSHAKE = 0x16;

/**
 * One port on 127.0.0.1 for two servers: connections that open with a TLS handshake go to `tlsPort`, any other (plain
 * HTTP) to `plainPort`. It puts a trap behind the very host and port of an https shop, so a client that downgraded to
 * http:// on the shop's own address would reach the trap.
 */
export async function startSchemeDemux(
  tlsPort: number,
  plainPort: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (first: Buffer) => {
      // Held until piped: chunks emitted meanwhile would have no listener.
      socket.pause();
      const upstream = connect(first[0] === TLS_HANDSHAKE ? tlsPort : plainPort, '127.0.0.1');
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      upstream.write(first);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
