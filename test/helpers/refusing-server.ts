// An HTTPS server on 127.0.0.1 port 0 that answers every request 401 with one body: a service
// refusing the credentials, which a test uses to see what the harness makes of the body, and to
// count what reached it (a wrong input must be refused before the first connection).

import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestPki } from '../tls/pki.js';

export interface RefusingServer {
  url: string;
  connections(): number;
  requests(): number;
  close(): Promise<void>;
}

export async function startRefusingServer(
  pki: Pick<TestPki, 'keyPem' | 'certPem'>,
  body = 'ok',
): Promise<RefusingServer> {
  let connections = 0;
  let requests = 0;
  const server = https.createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (_req, res) => {
    requests++;
    res.statusCode = 401;
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** `check` against a test server trusting ./ca.pem, its report in `reportDir`, nothing kept between runs. */
export const checkArgs = (url: string, reportDir: string, ...extra: string[]): string[] => [
  'check',
  '--base-url',
  url,
  '--ca',
  'ca.pem',
  '--report-dir',
  reportDir,
  '--ledger',
  'off',
  '--history',
  'off',
  ...extra,
];
