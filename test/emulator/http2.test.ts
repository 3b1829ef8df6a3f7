// Profile http2: the listener offers HTTP/2 by ALPN beside HTTP/1.1, one handler answers both the
// same, and the harness's client (undici with allowH2) speaks HTTP/2 to it; the plain-HTTP front
// and the ClientHello peek keep working in front of it. A real emulator on port 0 each time.

import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type Observed } from '../../src/emulator/index.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { tlsEndpoint } from '../../src/tls/endpoint.js';
import { offeredHttpVersions } from '../../src/tls/http-versions.js';
import { handshake, plainHttp, portOf } from './support/tls-probe.js';

let emu: Emulator | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await emu?.close();
  client = emu = undefined;
});

const clientOf = (e: Emulator) =>
  new ServiceClient(
    { environment: 'sandbox', baseUrl: e.url, credentials: e.credentials, caPem: e.caPem },
    { redactor: new Redactor(), connections: 4 },
  );

/** Token, validate and a business call: the answers a client reads, and the HTTP version of each request as the emulator saw it. */
async function session(profiles: Array<'http2'>) {
  const seen: Observed[] = [];
  emu = await createEmulator({ port: 0, profiles, observe: (o) => seen.push(o) });
  client = clientOf(emu);
  const issued = await client.issueToken();
  const token = issued.issued?.token ?? '';
  const validated = await client.validate(token);
  const business = await client.business('evaluation', { method: 'POST', body: { applicant_id: 'a-1' } }, token);
  return {
    statuses: [issued.status, validated.status, business.status],
    valid: (validated.json as { valid?: unknown }).valid,
    versions: [...new Set(seen.map((o) => o.req.httpVersion))],
    pseudo: seen.flatMap((o) => Object.keys(o.req.headers).filter((k) => k.startsWith(':'))),
    transport: client.transportSeen(),
  };
}

describe('profile http2', () => {
  it.each([
    { profiles: ['http2' as const], version: '2.0', alpn: 'h2' },
    { profiles: [], version: '1.1', alpn: 'http/1.1' },
  ])(
    'the harness speaks HTTP/$version when the listener offers $alpn, and reads every answer alike',
    async ({ profiles, version, alpn }) => {
      const r = await session(profiles);
      expect(r.statuses).toEqual([200, 200, 200]);
      expect(r.valid).toBe(true);
      expect(r.versions).toEqual([version]);
      // HTTP/2's pseudo-headers stay out of the headers a route reads (RequestInfo has method and path).
      expect(r.pseudo).toEqual([]);
      expect(Object.keys(r.transport.connections)).toEqual([alpn]);
    },
  );

  it('still serves HTTP/1.1 to a client that offers only that, with the same TLS 1.3 settings', async () => {
    const seen: Observed[] = [];
    emu = await createEmulator({ port: 0, profiles: ['http2'], observe: (o) => seen.push(o) });
    const h1 = await handshake(portOf(emu.url), emu.caPem, { ALPNProtocols: ['http/1.1'] });
    expect(h1).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
    expect(await handshake(portOf(emu.url), emu.caPem, { maxVersion: 'TLSv1.2' })).toMatchObject({ ok: false });
    const { request, Agent } = await import('undici');
    const agent = new Agent({ connect: { ca: emu.caPem } });
    const res = await request(`${emu.url}/tokens/health_check`, { method: 'POST', dispatcher: agent });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    await agent.close();
    expect(seen.map((o) => o.req.httpVersion)).toEqual(['1.1']);
  });

  it.each([
    { profiles: ['http2' as const], offered: ['h2', 'http/1.1'] },
    { profiles: [], offered: ['http/1.1'] },
  ])('the ALPN probe finds $offered', async ({ profiles, offered }) => {
    emu = await createEmulator({ port: 0, profiles });
    expect(await offeredHttpVersions(tlsEndpoint({ baseUrl: emu.url, caPem: emu.caPem }))).toEqual(offered);
  });

  it('keeps the plain-HTTP fault and the ClientHello peek working in front of HTTP/2', async () => {
    const hellos: Buffer[] = [];
    emu = await createEmulator({
      port: 0,
      profiles: ['http2'],
      faults: ['plain-http-accepted'],
      onClientHello: (first) => hellos.push(first),
    });
    expect(await plainHttp(portOf(emu.url))).toMatch(/^HTTP\/1\.1 200/);
    client = clientOf(emu);
    expect((await client.healthCheck()).status).toBe(200);
    expect(client.transportSeen().connections).toEqual({ h2: 1 });
    // The plain request's first byte, then the TLS ClientHello (record type 22).
    expect(hellos.map((h) => h[0])).toEqual(['P'.charCodeAt(0), 0x16]);
  });
});
