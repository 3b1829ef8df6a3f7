// close() ends promptly however clients left their connections: idle keep-alive, mid-handshake,
// or a plain TCP connection that never spoke.

import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { portOf } from './support/tls-probe.js';

/** Well under undici's and the server's keep-alive timeouts, so only close() can explain it. */
const PROMPT_MS = 1_000;

it.each([
  ['conformant', [] as const],
  ['behind the plain-HTTP sniffing front', ['plain-http-accepted'] as const],
])('closes with idle keep-alive and silent connections open (%s)', async (_, faults) => {
  const emu = await createEmulator({ port: 0, faults: [...faults] });
  const port = portOf(emu.url);
  const agent = new Agent({ connect: { ca: emu.caPem }, keepAliveTimeout: 60_000 });
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
