// A loopback TCP relay that counts the connections a tool opens to a target. Neither sslscan nor
// our probes say how many handshakes they made; the connections they open are the honest count.
// Only used for counting, never while timing: the relay adds a hop.

import net from 'node:net';

export interface ConnCounter {
  port: number;
  count(): number;
  close(): Promise<void>;
}

export async function startConnCounter(upstreamHost: string, upstreamPort: number): Promise<ConnCounter> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    // A reset on either side is routine here (refused handshakes); it must not become uncaught.
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    connections++;
    track(client);
    const upstream = net.connect(upstreamPort, upstreamHost);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('connection counter has no port');
  return {
    port: address.port,
    count: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
