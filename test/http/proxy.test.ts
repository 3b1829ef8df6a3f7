// HTTPS_PROXY / NO_PROXY, as corporate CI sets them, against a real CONNECT proxy on loopback (a
// few lines of node:http in test/helpers/connect-proxy.ts: it tunnels bytes and records what it was asked). The client and
// the preflight go through it, keep trusting exactly the target's CA inside the tunnel, never show
// the proxy a credential, and bypass it for NO_PROXY hosts.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer as createHttpsServer } from 'node:https';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { createTestPki } from '../tls/pki.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { proxyFor } from '../../src/http/proxy.js';
import type { Target } from '../../src/config/target.js';
import { runCli } from '../helpers/cli.js';
import { startConnectProxy, type ConnectProxy } from '../helpers/connect-proxy.js';

let emulator: Emulator;
let proxy: ConnectProxy;
let target: Target;
beforeAll(async () => {
  emulator = await createEmulator({ port: 0, tokenTtlS: 86_400 });
  target = {
    environment: 'sandbox',
    baseUrl: emulator.url,
    credentials: emulator.credentials,
    caPem: emulator.caPem,
    caFile: emulator.caFile,
  };
});
beforeEach(async () => {
  await proxy?.close();
  proxy = await startConnectProxy();
});
afterAll(async () => {
  await proxy?.close();
  await emulator?.close();
});

const authority = () => new URL(emulator.url).host;

async function issueThrough(env: NodeJS.ProcessEnv): Promise<number> {
  const client = new ServiceClient(target, { redactor: new Redactor(), env });
  try {
    return (await client.issueToken()).status;
  } finally {
    await client.close();
  }
}

describe('the HTTP client and HTTPS_PROXY', () => {
  it('tunnels through the proxy with CONNECT, trusting the target’s own CA inside the tunnel', async () => {
    expect(await issueThrough({ HTTPS_PROXY: proxy.url })).toBe(200);
    expect(proxy.connects).toEqual([authority()]);
    // The proxy carried TLS: neither the secret nor the body's shape passed it in clear.
    expect(proxy.traffic()).not.toContain(emulator.credentials.clientSecret);
    expect(proxy.traffic()).not.toContain('client_secret');
  });

  it('speaks HTTP/2 inside the tunnel to a service that offers it, and reads its compressed answers (profiles http2, compression)', async () => {
    const h2 = await createEmulator({ port: 0, profiles: ['http2', 'compression'] });
    const client = new ServiceClient(
      { ...target, baseUrl: h2.url, credentials: h2.credentials, caPem: h2.caPem },
      { redactor: new Redactor(), env: { HTTPS_PROXY: proxy.url } },
    );
    try {
      const ex = await client.issueToken();
      expect({ status: ex.status, coding: ex.headers['content-encoding'], token: typeof ex.issued?.token }).toEqual({
        status: 200,
        coding: 'gzip',
        token: 'string',
      });
      expect(client.transportSeen()).toEqual({ connections: { h2: 1 }, codings: { gzip: 1 } });
      expect(proxy.connects).toEqual([new URL(h2.url).host]);
    } finally {
      await client.close();
      await h2.close();
    }
  });

  it('lower-case https_proxy wins, as curl and undici read it; HTTP_PROXY serves https when HTTPS_PROXY is unset', async () => {
    expect(await issueThrough({ https_proxy: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:1' })).toBe(200);
    expect(await issueThrough({ HTTP_PROXY: proxy.url })).toBe(200);
    expect(proxy.connects).toEqual([authority(), authority()]);
  });

  it('sends the proxy URL’s user:password as Proxy-Authorization to the proxy only', async () => {
    const withAuth = proxy.url.replace('http://', 'http://ci-user:proxy-pass@');
    expect(await issueThrough({ HTTPS_PROXY: withAuth })).toBe(200);
    expect(proxy.auth).toEqual([`Basic ${Buffer.from('ci-user:proxy-pass').toString('base64')}`]);
  });

  it.each(['127.0.0.1', 'localhost, 127.0.0.1', '127.0.0.1:<port>', '*'])(
    'NO_PROXY=%s bypasses the proxy',
    async (pattern) => {
      const noProxy = pattern.replace('<port>', new URL(emulator.url).port);
      expect(await issueThrough({ HTTPS_PROXY: proxy.url, no_proxy: noProxy })).toBe(200);
      expect(proxy.connects).toEqual([]);
    },
  );

  it('the built-in emulator is always reached directly: a proxy cannot reach this machine’s loopback', async () => {
    const client = new ServiceClient(
      { ...target, emulated: true },
      { redactor: new Redactor(), env: { HTTPS_PROXY: proxy.url } },
    );
    try {
      expect((await client.issueToken()).status).toBe(200);
    } finally {
      await client.close();
    }
    expect(proxy.connects).toEqual([]);
  });

  it('NO_PROXY with another port, or another host, still proxies', async () => {
    expect(proxyFor({ baseUrl: emulator.url }, { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' })).toBe(proxy.url);
    expect(proxyFor({ baseUrl: emulator.url }, { HTTPS_PROXY: proxy.url, NO_PROXY: 'example.test,.internal' })).toBe(
      proxy.url,
    );
    expect(
      proxyFor({ baseUrl: 'https://api.corp.example.test' }, { HTTPS_PROXY: proxy.url, NO_PROXY: '.example.test' }),
    ).toBeUndefined();
    expect(
      proxyFor({ baseUrl: 'https://api.corp.example.test' }, { HTTPS_PROXY: proxy.url, NO_PROXY: 'corp.example.test' }),
    ).toBeUndefined();
  });
});

describe('a redirect met through the proxy', () => {
  it('is not followed: the credentials go nowhere but the target, and the proxy tunnels only to it', async () => {
    const pki = createTestPki();
    const hits: string[] = [];
    // Where the redirect points: it must never see a request.
    const elsewhere = createHttpsServer(
      { key: pki.keyPem, cert: pki.certPem },
      (req, res) => (hits.push(req.url ?? ''), res.end()),
    );
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const elsewhereUrl = `https://127.0.0.1:${(elsewhere.address() as { port: number }).port}/tokens`;
    const redirecting = createHttpsServer(
      { key: pki.keyPem, cert: pki.certPem },
      (req, res) => (req.resume(), res.writeHead(307, { location: elsewhereUrl }).end()),
    );
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const baseUrl = `https://127.0.0.1:${(redirecting.address() as { port: number }).port}`;
    const client = new ServiceClient(
      { ...target, baseUrl, caPem: pki.caPem },
      { redactor: new Redactor(), env: { HTTPS_PROXY: proxy.url } },
    );
    try {
      expect((await client.issueToken()).status).toBe(307);
      expect(hits).toEqual([]);
      expect(proxy.connects).toEqual([new URL(baseUrl).host]);
    } finally {
      await client.close();
      for (const s of [elsewhere, redirecting]) (s.closeAllConnections(), s.close());
    }
  });
});

describe('ces-harness check behind a proxy', () => {
  const credentials = () => ({
    CES_CLIENT_ID: emulator.credentials.clientId,
    CES_CLIENT_SECRET: emulator.credentials.clientSecret,
  });
  const work = () => mkdtempSync(join(tmpdir(), 'ces-proxy-'));
  const check = (env: Record<string, string>) => {
    const cwd = work();
    return runCli(
      [
        'check',
        '--base-url',
        emulator.url,
        '--ca',
        emulator.caFile,
        '--only',
        'token.issue',
        '--ledger',
        'off',
        '--report-dir',
        join(cwd, 'r'),
      ],
      { cwd, env: { ...credentials(), ...env } },
    );
  };

  it('preflight and checks go through HTTPS_PROXY: exit 0', async () => {
    const res = await check({ HTTPS_PROXY: proxy.url });
    expect(res.code, res.stderr).toBe(0);
    // One tunnel for the preflight's handshake, at least one for the client's pool.
    expect(proxy.connects.length).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.connects)).toEqual(new Set([authority()]));
  });

  it('npm start in a shell with HTTPS_PROXY set: the built-in emulator is tested directly, exit 0', async () => {
    const cwd = work();
    const res = await runCli(['check', '--only', 'token.issue', '--report-dir', join(cwd, 'r')], {
      cwd,
      env: { HTTPS_PROXY: proxy.url },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(proxy.connects).toEqual([]);
  });

  it('NO_PROXY naming the target: no CONNECT at all', async () => {
    const res = await check({ HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(res.code, res.stderr).toBe(0);
    expect(proxy.connects).toEqual([]);
  });

  it('a proxy that refuses the tunnel is exit 3, one line naming the proxy (without its password) and the fix', async () => {
    const refusing = await startConnectProxy(403);
    try {
      const res = await check({ HTTPS_PROXY: refusing.url.replace('http://', 'http://ci-user:proxy-pass@') });
      expect(res.code).toBe(3);
      expect(res.stderr).toBe(
        `ces-harness: cannot reach ${emulator.url} through the proxy ${refusing.url} (the proxy answered 403 to CONNECT ${authority()}); check HTTPS_PROXY, or list the host in NO_PROXY to connect directly\n`,
      );
    } finally {
      await refusing.close();
    }
  });

  it('a proxy that is not there is exit 3 too', async () => {
    const gone = proxy.url;
    await proxy.close();
    const res = await check({ HTTPS_PROXY: gone });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(
      /^ces-harness: cannot reach .* through the proxy http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED: connection refused: nothing listens there\); check HTTPS_PROXY/,
    );
  });
});
