// A service that takes the request and never finishes answering: the client gives up at its
// timeout and says which request went unanswered and for how long, not undici's bare "aborted".

import { createServer, type Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-https.js';
import { createTestPki } from '../tls/pki.js';

describe('an answer that never comes', () => {
  const pki = createTestPki();
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
      req.resume();
      // Headers then silence: the body never ends (the other case, no headers at all, is below).
      if (req.url === '/tokens/health_check') res.writeHead(200, { 'content-type': 'text/plain' }).write('al');
    });
    baseUrl = await listenLoopback(server);
  });
  afterAll(() => closeLoopback(server));

  it.each([
    { name: 'no headers', call: (c: ServiceClient) => c.issueToken(), label: 'POST /tokens' },
    { name: 'a body that never ends', call: (c: ServiceClient) => c.healthCheck(), label: 'POST /tokens/health_check' },
  ])('$name → "<request> got no complete answer within 0.3 s", code ETIMEDOUT', async ({ call, label }) => {
    const client = new ServiceClient(
      {
        environment: 'sandbox',
        baseUrl,
        credentials: { clientId: 'id', clientSecret: 'secret-value' },
        caPem: pki.caPem,
      },
      { redactor: new Redactor(), timeoutMs: 300 },
    );
    await expect(call(client)).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: `${label} got no complete answer within 0.3 s`,
    });
  });
});
