// What the tests' real servers (nginx, HAProxy) share: a loopback port picked by binding port 0,
// waiting for the first TLS handshake instead of a fixed sleep, and a stop that ends exactly the
// process the helper started and removes its temp folder.

import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { connect } from 'node:tls';

/** A port free right now: bind port 0, read what the kernel gave, release it for the server. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `name` completes a TLS handshake on its port; rejects when it exits first or the time is up. */
export async function untilServing(
  name: string,
  child: ChildProcess,
  port: number,
  log: () => Promise<string> | string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `${name} exited with ${code ?? signal}`;
  });
  // Bounded: one handshake attempt per round, each answered (refused) at once while the server starts.
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    if (exited) throw new Error(`${exited} before serving: ${(await log()).trim().slice(-600)}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: 'TLSv1.3' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.setTimeout(1_000, () => socket.destroy());
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (ok) return;
    // Between attempts, yield to the event loop (the emulator in this process must keep serving);
    // a refused connect is immediate, so this is what spaces the attempts.
    await new Promise((r) => setTimeout(r, Math.min(100, 10 * 2 ** attempt)));
  }
  throw new Error(
    `${name} did not accept a TLS connection on 127.0.0.1:${port} within ${timeoutMs} ms: ${(await log()).trim().slice(-600)}`,
  );
}

/** Stops the child with `signal` (SIGKILL after 5 s), then removes `dir`; the same promise on every call. */
export function stopper(child: ChildProcess, signal: NodeJS.Signals, dir: string): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill(signal);
    }).then(() => rm(dir, { recursive: true, force: true })));
}
