// An https.Server of a test on 127.0.0.1, port 0: its base URL once it listens, and a close that
// does not wait for idle keep-alive clients.

import type { Server } from 'node:https';

export async function listenLoopback(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

export function closeLoopback(server: Server): void {
  server.closeAllConnections();
  server.close();
}
