// src/http/undici.ts loads undici's parts from their own files to spare the CLI's start the rest of
// undici. They must send without undici's index ever loading, and each must be the very object the
// index exports, or an undici upgrade that moves or changes a file would show only as a run that
// cannot send. (The first test runs before anything here loads the index.)

import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import * as parts from '../../src/http/undici.js';

const indexLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\/]undici[\\/]index\.js$/.test(k));

describe('the undici parts the harness loads', () => {
  it('send a request with undici’s index never loaded', async () => {
    const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new parts.Agent();
    try {
      const { port } = server.address() as AddressInfo;
      const res = await parts.request(`http://127.0.0.1:${port}/tokens/validate?x=1`, {
        method: 'POST',
        dispatcher: agent,
      });
      expect([res.statusCode, await res.body.text()]).toEqual([200, 'POST /tokens/validate?x=1']);
      expect(indexLoaded()).toBe(false);
    } finally {
      await agent.close();
      server.close();
    }
  });

  it.each(['Agent', 'Client', 'Pool', 'ProxyAgent', 'buildConnector'] as const)(
    '%s is the one undici exports',
    async (name) => {
      const undici = await import('undici');
      expect(parts[name]).toBe(undici[name]);
    },
  );
});
