// The request timeout is the target's (request_timeout_s, --request-timeout), not a constant: a
// service that never answers is given up on after that long, and one that answers within it is not.

import { createServer, type Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import type { Target } from '../../src/config/target.js';
import { createTestPki } from '../tls/pki.js';

describe('the target’s request timeout', () => {
  const pki = createTestPki();
  let server: Server;
  let target: (requestTimeoutS: number) => Target;
  beforeAll(async () => {
    server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
      req.resume();
      // /tokens/health_check answers at once; everything else never does.
      if (req.url === '/tokens/health_check') res.writeHead(200, { 'content-type': 'text/plain' }).end('alive');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    target = (requestTimeoutS) => ({
      environment: 'sandbox',
      baseUrl: `https://127.0.0.1:${port}`,
      credentials: { clientId: 'id', clientSecret: 'secret-value' },
      caPem: pki.caPem,
      requestTimeoutS,
    });
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('a silent service is given up on after request_timeout_s, and the message names it', async () => {
    const client = new ServiceClient(target(0.5), { redactor: new Redactor() });
    try {
      await expect(client.issueToken()).rejects.toMatchObject({
        code: 'ETIMEDOUT',
        message: 'POST /tokens got no complete answer within 0.5 s',
      });
    } finally {
      await client.close();
    }
  });

  it('an answer within it is read as usual', async () => {
    // 5 s: room for a handshake on a saturated machine; the silent case above shows the limit bites.
    const client = new ServiceClient(target(5), { redactor: new Redactor() });
    try {
      expect((await client.healthCheck()).text).toBe('alive');
    } finally {
      await client.close();
    }
  });
});
