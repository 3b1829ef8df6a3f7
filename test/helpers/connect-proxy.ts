// A CONNECT-only forward proxy on 127.0.0.1:0 for the proxy tests: it tunnels bytes, records the
// authority and Proxy-Authorization of every CONNECT and every byte it carried, and never opens a
// connection anywhere but loopback.

import { createServer, type Server } from 'node:http';
import { connect as tcpConnect, type Socket } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** The authority of every CONNECT, in order. */
  connects: string[];
  /** The Proxy-Authorization of every CONNECT ('' when none). */
  auth: string[];
  /** Every byte that passed the tunnel, both ways, as latin1. */
  traffic(): string;
  close(): Promise<void>;
}

/** A CONNECT-only forward proxy; `refuse` answers every CONNECT with that status instead. */
export async function startConnectProxy(refuse?: number): Promise<ConnectProxy> {
  const connects: string[] = [];
  const auth: string[] = [];
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    auth.push(req.headers['proxy-authorization'] ?? '');
    sockets.add(client);
    client.on('error', () => client.destroy());
    if (refuse) return client.end(`HTTP/1.1 ${refuse} Refused\r\ncontent-length: 0\r\n\r\n`);
    // Loopback only: whatever host is asked for (127.0.0.1, localhost, or a made-up name such as
    // ces-proxy.test, which k6 needs because Go never proxies loopback) is tunnelled to 127.0.0.1.
    const port = Number(req.url!.slice(req.url!.lastIndexOf(':') + 1));
    const upstream = tcpConnect({ host: '127.0.0.1', port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      client.on('data', (d: Buffer) => chunks.push(d));
      upstream.on('data', (d: Buffer) => chunks.push(d));
      client.pipe(upstream).pipe(client);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    auth,
    traffic: () => Buffer.concat(chunks).toString('latin1'),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
