// close() ends promptly however clients left their connections: idle keep-alive, mid-handshake,
// a plain TCP connection that never spoke, or (profile http2) an HTTP/2 session with a stream open.

import { connect } from 'node:net';
import { connect as http2Connect } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { portOf } from './support/tls-probe.js';

/** Well under undici's and the server's keep-alive timeouts, so only close() can explain it. */
const PROMPT_MS = 1_000;

it.each([
  ['conformant', [] as const, [] as const],
  ['behind the plain-HTTP sniffing front', ['plain-http-accepted'] as const, [] as const],
  ['HTTP/2 beside HTTP/1.1', [] as const, ['http2'] as const],
  ['HTTP/2 behind the plain-HTTP sniffing front', ['plain-http-accepted'] as const, ['http2'] as const],
])('closes with idle keep-alive and silent connections open (%s)', async (_, faults, profiles) => {
  const emu = await createEmulator({ port: 0, faults: [...faults], profiles: [...profiles] });
  const port = portOf(emu.url);
  // allowH2: with profile http2 the keep-alive connections are HTTP/2 sessions.
  const agent = new Agent({ connect: { ca: emu.caPem }, keepAliveTimeout: 60_000, allowH2: true });
  // Five keep-alive connections left idle after a request each.
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      const res = await request(`${emu.url}/tokens/health_check`, { method: 'POST', dispatcher: agent });
      await res.body.text();
    }),
  );
  // A TCP connection that never speaks, and a TLS one that finished its handshake and idles.
  const silent = connect({ host: '127.0.0.1', port });
  const idleTls = tlsConnect({ host: '127.0.0.1', port, ca: emu.caPem, servername: 'localhost' });
  await new Promise((resolve) => idleTls.once('secureConnect', resolve));
  silent.on('error', () => undefined);
  idleTls.on('error', () => undefined);

  const started = performance.now();
  await emu.close();
  expect(performance.now() - started).toBeLessThan(PROMPT_MS);
  // Closing twice is harmless, and the port no longer answers.
  await emu.close();
  await expect(request(`${emu.url}/tokens/health_check`, { method: 'POST', dispatcher: agent })).rejects.toThrow();
  silent.destroy();
  idleTls.destroy();
  await agent.close();
});

it('ends an HTTP/2 session whose stream still waits for its answer (profile http2)', async () => {
  // The request body never ends, so no answer comes: only close() can end the stream.
  const emu = await createEmulator({ port: 0, profiles: ['http2'] });
  const session = http2Connect(emu.url, { ca: emu.caPem, servername: 'localhost' });
  session.on('error', () => undefined);
  const stream = session.request({ ':method': 'POST', ':path': '/tokens', 'content-type': 'application/json' });
  stream.on('error', () => undefined);
  stream.write('{"token":');
  await new Promise((resolve) => session.once('remoteSettings', resolve));
  const ended = new Promise((resolve) => stream.once('close', resolve));
  const sessionClosed = new Promise((resolve) => session.once('close', resolve));

  const started = performance.now();
  await emu.close();
  await Promise.all([ended, sessionClosed]);
  expect(performance.now() - started).toBeLessThan(PROMPT_MS);
});
